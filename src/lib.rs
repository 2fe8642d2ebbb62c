//! # pgo-merge
//!
//! Merges and converts profile-guided-optimisation profiles. The crate is a staged pipeline:
//!
//! ```text
//!  inputs ──► front-ends ──► IR (Profile) ──► passes ──► back-ends ──► output
//!  .profraw    sniff/read     functions,       merge       .profdata (index v7–v13)
//!  (v5, v7–v11)               counters,                    .proftext
//!                             value sites
//! ```
//!
//! * [`frontends`] read inputs into the [`ir`]: LLVM raw profiles of every raw version LLVM
//!   writes today (5, 7–11), 32/64-bit, either byte order, several profiles per file.
//! * [`passes::merge`] combines profiles exactly like `llvm-profdata merge` (weighted,
//!   saturating), in parallel and independent of the thread count.
//! * [`backends`] write indexed (`.profdata`, any index version 7–13) and text profiles.
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
