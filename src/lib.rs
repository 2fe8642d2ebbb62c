//! # pgo-merge
//!
//! Merges and converts profile-guided-optimisation profiles. The crate is a staged pipeline:
//!
//! ```text
//!  inputs ──► front-ends ──► IR (Profile) ──► passes ──► back-ends ──► output
//!  .profraw    sniff/read     functions,       merge       .profdata (index v7–v14)
//!  .profdata                  counters,        filter      .proftext
//!  .proftext                  value sites      overlap     show (text / JSON)
//! ```
//!
//! * [`frontends`] read inputs into the [`ir`]: LLVM raw profiles of every raw version LLVM
//!   has written since LLVM 5 (4, 5, 7–11), 32/64-bit, either byte order, several profiles per
//!   file; indexed profiles (index versions 1–14); text profiles.
//! * [`passes::merge`] combines profiles exactly like `llvm-profdata merge` (weighted,
//!   saturating), in parallel and independent of the thread count; [`passes::overlap`]
//!   compares two profiles.
//! * [`backends`] write indexed (`.profdata`, any index version 7–14) and text profiles, and
//!   `show` output (llvm-profdata's text, or JSON).
//! * [`pipeline`] is the driver: it opens files, picks front-ends, runs the passes and
//!   calls a back-end, for every job the command line does (merge, convert, show, overlap,
//!   symbolize), one request in, one outcome out.
//! * [`passes::symbolize`] turns sampled JIT code into profiles: jitdumps
//!   ([`frontends::jitdump`]), perf maps and r2rmaps ([`frontends::perfmap`]) give code
//!   regions, `perf script` text ([`frontends::perf_script`]) gives sampled stacks, a
//!   time-aware index resolves their `[unknown]` frames, and the stacks become folded stacks
//!   or iprof `samplingProfiles`.
//!
//! ## Example
//!
//! Merge raw profiles into an indexed profile, as `pgo-merge a.profraw b.profraw -o
//! merged.profdata` does:
//!
//! ```no_run
//! use pgo_merge::pipeline::{self, MergeRequest};
//!
//! let request = MergeRequest::new("merged.profdata")
//!     .input("a.profraw")
//!     .weighted_input("2".parse().unwrap(), "b.profraw");
//! let outcome = pipeline::merge(&request, &pipeline::NoProgress)?;
//! assert_eq!(outcome.inputs_merged, 2);
//! # Ok::<(), pgo_merge::Error>(())
//! ```
//!
//! The layers and the rules between them are described in `docs/architecture.md`.
//!
//! ## What the API is
//!
//! The documented items are the API, kept stable within a minor version:
//!
//! * the facade re-exported here ([`MergeRequest`], [`ShowRequest`], [`OverlapRequest`],
//!   [`SymbolizeRequest`] and their outcomes, [`Error`], [`Warning`], [`Profile`]);
//! * [`pipeline`], the driver: one request in, one outcome out, for every job the binary does;
//! * [`ir`], the data model every reader produces and every writer takes;
//! * [`frontends::open`], the read side's one way in for every format family;
//! * [`passes`], operations on the IR (merge, overlap, filter, conversions);
//! * [`backends`], the writers and report renderers;
//! * [`error`], errors and warnings with their locations.
//!
//! The byte-level layers (`bytes`, `codec`, `sys`) and each format's own reader under
//! `frontends` are public only so that this crate's tests, benchmarks and fuzz targets can
//! reach them; they are hidden from the documentation and may change in any release.
//! Enums that may gain a variant and option structs are `#[non_exhaustive]`: start from a
//! constructor or `Default` and set fields.

#![warn(missing_docs)]
// The crate's docs link to the readers and requests of every format family; in a build
// without a family's feature those items do not exist and the links are plain text.
#![cfg_attr(
    not(all(
        feature = "sample",
        feature = "iprof",
        feature = "jit",
        feature = "bolt",
        feature = "correlate"
    )),
    allow(rustdoc::broken_intra_doc_links)
)]
// No function over 150 lines (clippy.toml); tests/integration/architecture.rs bans allows.
#![warn(clippy::too_many_lines)]

pub mod backends;
#[doc(hidden)]
pub mod bytes;
#[doc(hidden)]
pub mod codec;
pub mod error;
pub mod frontends;
pub mod ir;
pub mod passes;
pub mod pipeline;
#[doc(hidden)]
pub mod sys;

pub use error::{Error, ErrorKind, Result, Warning};

// The facade: what most users need, without knowing the layers.
pub use error::Location;
pub use ir::{FunctionKey, FunctionRecord, Profile, ProfileKind};
pub use passes::Weight;
#[cfg(feature = "jit")]
pub use pipeline::SymbolizeRequest;
pub use pipeline::{
    InputSpec, MergeOutcome, MergeRequest, MergedMemory, Message, NoProgress, OutputFormat,
    OverlapRequest, Progress, ShowRequest,
};
