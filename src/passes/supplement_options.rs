//! The options of supplementing with a sample profile (outside `supplement`, so that requests carry them in builds
//! without sample profiles too).

/// The tuning options of llvm-profdata, with its defaults.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct SupplementOptions {
    /// Functions with fewer counters are left alone (`--suppl-min-size-threshold`, 10): the
    /// early inliner may inline them anyway.
    pub min_size: u32,
    /// Fraction of zero counters above which a function's counts are dropped for a pseudo
    /// count (`--zero-counter-threshold`, 0.7). Compared in single precision, as LLVM does.
    pub zero_counter_threshold: f32,
    /// The instrumentation cold threshold; 0 takes it from the profile's summary
    /// (`--instr-prof-cold-threshold`, 0).
    pub instr_cold_threshold: u32,
}

impl Default for SupplementOptions {
    fn default() -> Self {
        SupplementOptions {
            min_size: 10,
            zero_counter_threshold: 0.7,
            instr_cold_threshold: 0,
        }
    }
}
