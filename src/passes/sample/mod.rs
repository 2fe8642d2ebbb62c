//! Passes over sample profiles ([`crate::ir::sample`]): the weighted merge, cold-context
//! trimming, layout conversion (flat, nested).

pub mod layout;
pub mod merge;
pub mod trim;

pub use layout::{SampleLayout, convert_layout};
pub use merge::{IssueKind, MergeIssue, SampleMerger};
pub use trim::{ColdContextOptions, ColdContextStats, trim_cold_contexts};
