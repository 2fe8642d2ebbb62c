//! Passes over sample profiles ([`crate::ir::sample`]): the weighted merge, cold-context
//! trimming.

pub mod merge;
pub mod trim;

pub use merge::{IssueKind, MergeIssue, SampleMerger};
pub use trim::{ColdContextOptions, ColdContextStats, trim_cold_contexts};
