//! The intermediate representation every front-end produces and every back-end consumes.
//!
//! A [`Profile`] holds [`FunctionRecord`]s keyed by [`FunctionKey`] (name hash, structural
//! hash), their [`Counters`], MC/DC bitmaps and [`ValueProfile`]s, the [`ProfileKind`] flags,
//! the symbol tables that name hashes refer to, binary IDs, temporal traces and provenance.
//! Passes only ever see this representation.

// BOLT profiles (legacy fdata, YAML).
#[cfg(feature = "bolt")]
pub mod bolt;
#[cfg(feature = "bolt")]
pub mod bolt_report;
#[cfg(feature = "bolt")]
pub mod bolt_yaml;
// Code regions of JIT/AOT code and sampled stacks (symbolisation).
#[cfg(feature = "jit")]
pub mod code;
pub mod function;
pub mod kind;
pub mod layout;
pub mod name_hash;
pub mod order;
pub mod overlap;
pub mod profile;
// LLVM sample profiles (AutoFDO, CSSPGO).
#[cfg(feature = "sample")]
pub mod sample;
// GraalVM `.iprof` IR: Java symbols, context trees, per-section payloads.
#[cfg(feature = "iprof")]
pub mod context;
pub mod correlation;
pub mod fx;
#[cfg(feature = "iprof")]
pub mod iprof;
#[cfg(feature = "iprof")]
pub mod java_symbols;
pub mod summary;
pub mod symbols;
pub mod validate;
pub mod value;
// Input weights (exact positive ratios), applied by every merge.
pub mod weight;

pub use function::{CS_HASH_FLAG, CounterBytes, Counters, FunctionKey, FunctionRecord};
pub use kind::ProfileKind;
pub use layout::{CounterLayout, LayoutRecord};
pub use profile::{Profile, Provenance, TableLayout, TemporalProfile, TemporalTrace};
pub use summary::{Summary, SummaryBuilder, SummaryEntry};
pub use symbols::{Name, SymbolTable, SymbolTableUnion};
pub use value::{ValueCount, ValueKind, ValueProfile, ValueSite};
pub use weight::Weight;
