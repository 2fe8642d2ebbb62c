//! Passes over the IR: each takes IR values and gives IR values. No pass opens a file or
//! calls a reader or a writer; the driver (`pipeline`) does that around them.

#[cfg(feature = "bolt")]
pub mod bolt_merge;
#[cfg(feature = "bolt")]
pub mod bolt_report;
#[cfg(feature = "bolt")]
pub mod bolt_yaml_merge;
#[cfg(feature = "iprof")]
pub mod convert;
#[cfg(feature = "regex")]
pub mod filter;
#[cfg(feature = "iprof")]
pub mod iprof_merge;
pub mod llvm_normalise;
pub mod merge;
pub mod normalise;
pub mod order;
pub mod overlap;
pub mod remap;
// LLVM sample profiles.
#[cfg(feature = "sample")]
pub mod sample;
// Symbolisation (jit); its summary of sampled methods also serves `show` of .iprof.
#[cfg(feature = "iprof")]
pub mod symbolize;
// Supplementing an instrumentation profile with a sample profile.
#[cfg(feature = "sample")]
pub mod supplement;
pub mod supplement_options;
pub mod temporal;
pub mod trim;

pub use crate::ir::Weight;
pub use merge::{FailureMode, MergeOptions, MergeOutput, merge_profiles};
