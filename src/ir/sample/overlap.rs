//! The figures `llvm-profdata overlap --sample` reports: how similar two sample profiles
//! are, for the whole program, for hot functions and blocks, and per function.
//! [`crate::passes::sample::overlap`] computes them; the sample back-end prints them.

use super::SampleContext;

/// Counts and sums of one comparison (LLVM's `SampleOverlapStats`): of the whole program
/// (units are functions and their samples), of hot functions or hot blocks (units only), or
/// of one function (units are its lines and inlined callees).
///
/// Sums of samples wrap at 2^64, as LLVM's do.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SampleOverlapStats {
    /// The function in the base profile (per-function figures of a function both profiles
    /// have).
    pub base_name: Option<SampleContext>,
    /// The function in the test profile (per-function figures).
    pub test_name: Option<SampleContext>,
    /// Units in both profiles.
    pub overlap_count: u64,
    /// Samples both profiles agree on: the sum over units of the smaller count.
    pub overlap_sample: u64,
    /// Units only in the base profile.
    pub base_unique_count: u64,
    /// Samples of units only in the base profile.
    pub base_unique_sample: u64,
    /// Units only in the test profile.
    pub test_unique_count: u64,
    /// Samples of units only in the test profile.
    pub test_unique_sample: u64,
    /// Units of the base profile.
    pub base_count: u64,
    /// Samples of the base profile (or function).
    pub base_sample: u64,
    /// Units of the test profile.
    pub test_count: u64,
    /// Samples of the test profile (or function).
    pub test_sample: u64,
    /// Units in either profile.
    pub union_count: u64,
    /// The sum over units of the larger count.
    pub union_sample: u64,
    /// Weighted similarity, 0 (nothing in common) to 1 (the same shape).
    pub similarity: f64,
    /// Per function: its share of the base profile's samples.
    pub base_weight: f64,
    /// Per function: its share of the test profile's samples.
    pub test_weight: f64,
}

/// The outcome of comparing two sample profiles.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub enum SampleOverlap {
    /// One profile (or both) has no samples at all: nothing was compared (llvm-profdata
    /// says so and stops).
    ZeroSamples {
        /// The base profile has no samples.
        base: bool,
        /// The test profile has no samples.
        test: bool,
    },
    /// The figures.
    Compared(Box<SampleOverlapFigures>),
}

/// The figures of a comparison of two profiles with samples.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SampleOverlapFigures {
    /// Whole-program figures (units: top-level functions or contexts).
    pub program: SampleOverlapStats,
    /// Hot functions (counts only): hot in the base, in the test, in both, in either.
    pub hot_functions: SampleOverlapStats,
    /// Hot blocks (counts only), as `hot_functions`.
    pub hot_blocks: SampleOverlapStats,
    /// The functions selected for the per-function table (by `--value-cutoff`,
    /// `--similarity-cutoff` or `--function`), in the order they are printed: by base
    /// weight, largest first, equal weights in the order the test profile's functions were
    /// met.
    pub functions: Vec<SampleOverlapStats>,
}
