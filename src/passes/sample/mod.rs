//! Passes over sample profiles ([`crate::ir::sample`]): the weighted merge, cold-context
//! trimming, layout conversion (flat, nested), symbol remapping, function filters, pruning
//! to a size limit, and the comparison of two profiles (`overlap --sample`).

pub mod filter;
pub mod layout;
pub mod merge;
pub mod overlap;
pub mod remap;
pub mod size_limit;
pub mod trim;

pub use filter::SampleFilter;
pub use layout::{SampleLayout, convert_layout};
pub use merge::{IssueKind, MergeIssue, SampleMerger};
pub use overlap::{SampleOverlapOptions, overlap as overlap_sample};
pub use trim::{ColdContextOptions, ColdContextStats, trim_cold_contexts};
