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
//! * [`passes::symbolize`] turns sampled JIT code into profiles: jitdumps
//!   ([`frontends::jitdump`]), perf maps and r2rmaps ([`frontends::perfmap`]) give code
//!   regions, `perf script` text ([`frontends::perf_script`]) gives sampled stacks, a
//!   time-aware index resolves their `[unknown]` frames, and the stacks become folded stacks
//!   or iprof `samplingProfiles`.
//!
//! ## Example
//!
//! ```no_run
//! use pgo_merge::passes::{merge_files, InputSpec, MergeOptions, Weight};
//! use pgo_merge::backends::profdata::{self, ProfdataOptions};
//!
//! let inputs = vec![
//!     InputSpec { path: "a.profraw".into(), weight: Weight::ONE },
//!     InputSpec { path: "b.profraw".into(), weight: "2".parse().unwrap() },
//! ];
//! let merged = merge_files(&inputs, &MergeOptions::default(), None)?;
//! let (bytes, _warnings) = profdata::write(&merged.profile, &ProfdataOptions::default())?;
//! pgo_merge::output::write_atomic("merged.profdata".as_ref(), &bytes)?;
//! # Ok::<(), pgo_merge::Error>(())
//! ```

#![warn(missing_docs)]

pub mod backends;
pub mod bytes;
pub mod chained_hash;
#[cfg(feature = "cli")]
pub mod cli;
pub mod detect;
pub mod error;
pub mod frontends;
pub mod hashing;
pub mod ir;
pub mod names_blob;
pub mod output;
pub mod passes;
pub mod value_prof_data;

pub use error::{Error, ErrorKind, Result, Warning};
