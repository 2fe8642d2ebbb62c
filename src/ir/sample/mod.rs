//! The IR of LLVM *sample* profiles (AutoFDO, CSSPGO), as `llvm-profdata merge --sample`
//! models them.
//!
//! A [`SampleProfile`] maps a [`SampleContext`] — a function name (flat and nested
//! profiles) or a full calling context `[main:3 @ foo:2 @ bar]` (context-sensitive
//! profiles) — to the [`FunctionSamples`] of that function or context. A function's samples
//! are: its total and head sample counts, body samples per [`LineLocation`] (line offset
//! from the function's first line, discriminator) as [`SampleRecord`]s with their call
//! targets, and the profiles of callees inlined at a location (nested [`FunctionSamples`]
//! keyed by location and callee [`FunctionId`]). Probe-based profiles use a probe index as
//! the line offset and carry a CFG checksum per function.
//!
//! Every count is a number of samples (`u64`), added with saturation. The orders LLVM
//! writes in are the orders of these types (`Ord`): locations by (line offset,
//! discriminator), function identities as LLVM's `FunctionId` compares them, contexts as
//! LLVM's `SampleContext` does.
//!
//! Front-ends (text, binary, extbinary) build this; passes merge and trim it; back-ends
//! write it.

pub mod context;
pub mod flat;
pub mod function;
pub mod function_id;
pub mod location;
pub mod merge;
pub mod overlap;
pub mod profile;
pub mod record;
pub mod summary;

pub use context::{ContextFrame, ContextHash, SampleContext};
pub use flat::FlatSampleProfile;
pub use function::{CallsiteSamples, Callsites, ContextAttributes, FunctionSamples, TypeCounts};
pub use function_id::FunctionId;
pub use location::{FsDiscriminatorPass, LineLocation};
pub use merge::MergeIssueKind;
pub use overlap::{SampleOverlap, SampleOverlapFigures, SampleOverlapStats};
pub use profile::{ProfileSymbolList, SampleFlags, SampleFormat, SampleProfile};
pub use record::{CallTargets, SampleRecord};

/// Inlined callees nest as deep as the input says: LLVM has no limit but its stack (its
/// text writer overflows 8 MiB near 18,000 levels, its binary reader near 32,000), and
/// neither do we; every walk over the nesting recurses through
/// [`crate::bytes::stack::deep`] or loops, so depth costs memory, never the thread's stack.
/// This many levels are checked by the tests (the issue's 20,000, on 256 KiB threads).
#[cfg(test)]
pub const TESTED_INLINE_DEPTH: usize = 20_000;

/// `x * weight + acc` with saturation at `u64::MAX`, as LLVM's `SaturatingMultiplyAdd`;
/// the flag is true if any step saturated (LLVM's "Counter overflow").
#[inline]
pub fn saturating_mul_add(x: u64, weight: u64, acc: u64) -> (u64, bool) {
    match x.checked_mul(weight) {
        None => (u64::MAX, true),
        Some(p) => match acc.checked_add(p) {
            None => (u64::MAX, true),
            Some(s) => (s, false),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saturating_mul_add_flags_overflow() {
        assert_eq!(saturating_mul_add(3, 2, 1), (7, false));
        assert_eq!(saturating_mul_add(u64::MAX, 2, 0), (u64::MAX, true));
        assert_eq!(saturating_mul_add(u64::MAX, 1, 1), (u64::MAX, true));
        assert_eq!(saturating_mul_add(0, u64::MAX, 5), (5, false));
    }
}
