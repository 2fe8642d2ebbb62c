//! Passes over sample profiles ([`crate::ir::sample`]): the weighted merge.

pub mod merge;

pub use merge::{IssueKind, MergeIssue, SampleMerger};
