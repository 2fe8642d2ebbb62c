//! A whole profile: records plus the tables and sections that go with them.

use std::path::PathBuf;
use std::sync::Arc;

use super::function::FunctionRecord;
use super::kind::ProfileKind;
use super::summary::Summary;
use super::symbols::SymbolTable;

/// One temporal trace: functions in the order they were first called.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TemporalTrace {
    /// Weight of the trace (the input's weight for raw profiles).
    pub weight: u64,
    /// Name hashes of the functions, in first-call order.
    pub functions: Vec<u64>,
}

/// The temporal traces of a profile (reservoir-sampled when merging).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TemporalProfile {
    /// The sampled traces.
    pub traces: Vec<TemporalTrace>,
    /// How many traces were ever offered to the reservoir.
    pub stream_size: u64,
}

/// The hash-table layout of an indexed input: its bucket count and its keys (name hashes) in
/// payload order. Writing a profile read from a single indexed file with this layout
/// reproduces the file's table, even one written by LLVM 16 or older, whose key order followed
/// a hash map's iteration.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TableLayout {
    /// Number of buckets (a power of two).
    pub num_buckets: u64,
    /// Name hashes in payload order (shared with the name table they were checked against:
    /// every further input of one program has the same).
    pub keys: Arc<[u64]>,
}

/// Where a profile came from, for messages and `show`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Provenance {
    /// The input file.
    pub path: Option<PathBuf>,
    /// The format it was read as, e.g. "raw profile v10 (64-bit little-endian)".
    pub format: String,
}

/// A profile in the intermediate representation.
///
/// Invariants (checked by [`crate::ir::validate`]): every record has at least one counter;
/// records are in the order the producer listed them (raw: data-record order), and the same
/// key may appear more than once only in inputs (merging combines them).
#[derive(Debug, Clone, Default)]
pub struct Profile<'a> {
    /// What kind of instrumentation produced it.
    pub kind: ProfileKind,
    /// Function records.
    pub records: Vec<FunctionRecord<'a>>,
    /// Function names by name hash.
    pub names: Arc<SymbolTable>,
    /// Vtable names by name hash (for vtable value profiles).
    pub vtable_names: Arc<SymbolTable>,
    /// Build IDs of the binaries that wrote the profile, as raw bytes.
    pub binary_ids: Vec<Vec<u8>>,
    /// Temporal traces (only with [`ProfileKind::TEMPORAL`]).
    pub temporal: TemporalProfile,
    /// Counters of correlation-mode raw profiles (no data records): they need the binary or
    /// its debug info to be named and are not carried.
    pub uncorrelated_counters: u64,
    /// The summaries stored in the input (indexed profiles only): the first for ordinary
    /// records, the second for context-sensitive ones. Writers always recompute summaries.
    pub stored_summaries: Option<(Summary, Option<Summary>)>,
    /// The table layout of the indexed file it was read from (None for other inputs and
    /// merged profiles with several inputs).
    pub layout: Option<TableLayout>,
    /// Where it came from.
    pub provenance: Provenance,
}

impl Profile<'_> {
    /// Detaches the profile from the input buffer it borrows from.
    pub fn into_owned(self) -> Profile<'static> {
        Profile {
            kind: self.kind,
            records: self.records.into_iter().map(|r| r.into_owned()).collect(),
            names: self.names,
            vtable_names: self.vtable_names,
            binary_ids: self.binary_ids,
            temporal: self.temporal,
            uncorrelated_counters: self.uncorrelated_counters,
            stored_summaries: self.stored_summaries,
            layout: self.layout,
            provenance: self.provenance,
        }
    }

    /// The name of a record's function, lossily decoded, or its hash in hex if unknown.
    pub fn display_name(&self, name_hash: u64) -> String {
        match self.names.get(name_hash) {
            Some(n) => super::symbols::display_name(n),
            None => format!("<name hash {name_hash:#018x}>"),
        }
    }
}
