//! Symbolising sampled JIT code: code regions (from jitdumps, perf maps and r2rmaps) in,
//! sampled stacks resolved against them, profiles out. Both inputs are IR
//! ([`crate::ir::code`]): the front-ends read the files.
//!
//! ```text
//!  CodeSource ─┐                           SampleSource
//!  CodeSource ─┼─► SymbolizerBuilder ─► Symbolizer ──► symbolize() ──► Stacks
//!  CodeSource ─┘     (regions)          (indexes)      (resolve)         ├─► folded stacks
//!                                                                        └─► iprof samplingProfiles
//! ```
//!
//! * Only frames that the sampler itself could not name (`[unknown]`) are resolved; frames
//!   it named keep its name. A frame is looked up first in the jitdumps of its process (by
//!   load time, see [`index`]), then in the time-less maps (perf maps of that process, maps
//!   whose pid is unknown, r2rmaps), where a later line wins over an earlier overlapping one.
//! * A sample's time is taken at the end of its unit
//!   ([`crate::ir::code::SampleHeader::time_upper`]; µs in perf script's default output), so
//!   a load logged within the same microsecond before the sample is seen, as perf sees it.
//! * MOVE records add the moved code at its new address from the move's time on; the old
//!   range stays mapped until other code is loaded over it, as with `perf inject --jit`.

#[cfg(feature = "jit")]
mod history;
#[cfg(feature = "jit")]
pub mod index;
mod methods;
#[cfg(feature = "jit")]
pub mod names;
#[cfg(feature = "jit")]
pub mod sample;
#[cfg(feature = "jit")]
mod stacks;
#[cfg(feature = "jit")]
mod stats;
#[cfg(feature = "jit")]
mod symbolizer;
#[cfg(feature = "jit")]
#[cfg(test)]
mod tests;

#[cfg(feature = "jit")]
pub use crate::ir::code::SourceKind;
pub use methods::{MethodSamples, method_samples};
#[cfg(feature = "jit")]
pub use sample::{ProcessMatch, SampleResolver};
#[cfg(feature = "jit")]
pub use stacks::{FrameNames, Stacks, SymbolizeOptions, frame_name, symbolize};
#[cfg(feature = "jit")]
pub use stats::SymbolizeStats;
#[cfg(feature = "jit")]
pub use symbolizer::{Resolved, SourceStats, Symbol, Symbolizer, SymbolizerBuilder};
