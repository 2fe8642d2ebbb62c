//! The figures of a comparison of two profiles (LLVM's `OverlapStats`): computed by
//! `passes::overlap`, printed by `backends::overlap`.

/// Sums of one side, as LLVM's `CountSumOrPercent`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CountSum {
    /// Number of functions (program level) or counters (function level).
    pub num_entries: u64,
    /// Sum of counters (or of scores / shares).
    pub count_sum: f64,
    /// Per value kind.
    pub value_counts: [f64; 3],
}

/// Program- or function-level overlap figures (LLVM's `OverlapStats`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OverlapStats {
    /// Sums of the base side.
    pub base: CountSum,
    /// Sums of the test side.
    pub test: CountSum,
    /// Scores of what overlaps.
    pub overlap: CountSum,
    /// Shares of mismatched functions.
    pub mismatch: CountSum,
    /// Shares of functions only in the test profile.
    pub unique: CountSum,
    /// Function level: name and structural hash.
    pub function: Option<(String, u64)>,
    /// Whether the figures are complete enough to print.
    pub valid: bool,
}
