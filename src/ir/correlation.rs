//! What a binary's debug info says about the counters of a lightweight build, as
//! `llvm-profdata show --debug-info` reports it.

/// Which of the two correlation modes a binary was built for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CorrelateKind {
    /// `-profile-correlate=binary`: data records in `__llvm_covdata`.
    Binary,
    /// `-profile-correlate=debug-info` / `-debug-info-correlate`: DWARF.
    DebugInfo,
}

/// One function's counters as its debug info describes them (a "probe").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DescribedProbe {
    /// The PGO name ("Function Name" annotation).
    pub function_name: Vec<u8>,
    /// The function's linkage name, else its name, as the DWARF gives them (found through
    /// `DW_AT_specification` and `DW_AT_abstract_origin` too); `None` if it has neither.
    pub linkage_name: Option<Vec<u8>>,
    /// Structural (CFG) hash.
    pub cfg_hash: u64,
    /// Byte offset of the counters in `__llvm_prf_cnts`.
    pub counter_offset: u64,
    /// Number of counters, as the debug info gives it.
    pub num_counters: u64,
    /// Byte offset of the function's MC/DC bitmap in `__llvm_prf_bits` (0 without one;
    /// clang 23+ describes bitmaps).
    pub bitmap_offset: u64,
    /// Number of MC/DC bitmap bytes (0 without a bitmap).
    pub num_bitmap_bytes: u32,
    /// The declaring file, relative to the compilation directory where the line table
    /// makes it so (LLVM's "relative file path"); `None` if unknown.
    pub file: Option<Vec<u8>>,
    /// The declaring line; `None` if unknown or 0.
    pub line: Option<u64>,
}

/// Every function the debug info describes counters of, for `show --debug-info`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DebugInfoCounters {
    /// The complete probes in the order of their DIEs, duplicates included.
    pub probes: Vec<DescribedProbe>,
    /// How many distinct counter offsets they have (what a merge correlates).
    pub functions: usize,
    /// Size of `__llvm_prf_cnts` in bytes.
    pub counters_size: u64,
}
