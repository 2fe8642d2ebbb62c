//! Converting between GraalVM iprof profiles and LLVM instrumentation profiles.
//!
//! # iprof method → LLVM function record ([`iprof_to_llvm`])
//!
//! One record per method, or with `--keep-contexts` per method in each calling context (by
//! default contexts are first folded into their methods by the trim pass at depth 1):
//!
//! * **Name**: the method's PGO name is its declaring type, name and signature type names,
//!   spelled as described in [`spelling`] (`java.util.HashMap::get(java.lang.Object)java.lang.Object`);
//!   a record of a calling context appends its callers as `<Caller::m()void:12`. The name hash
//!   is the MD5 of that name, as LLVM computes it, and the name is in the names section.
//! * **Structural hash**: derived from the record's shape — which conditional sites (BCIs and
//!   successor lists), virtual-invoke sites and call-count entry it has ([`shape`]) — so
//!   records of different bytecode never merge silently.
//! * **Counters**: counter 0 is the call count (0 if the method has no call-count entry); then
//!   every conditional site in ascending BCI order, and in each site its successors ordered
//!   by (branch index, target BCI, occurrence), one counter per successor. The profile is an
//!   IR-level, entry-first profile, so `llvm-profdata show` prints the call count as the
//!   "Function count" and the successors as the remaining block counts.
//! * **Value sites**: each virtual-invoke site, in ascending BCI order, is one
//!   `IPVK_VTableTarget` site whose values are the MD5s of the receiver type names, with the
//!   type names in the vtable-names section so that they print; the shape is carried as the
//!   values of `IPVK_MemOPSize` sites ([`shape`]), which LLVM's merge preserves.
//! * **Not representable**, reported with one line each and dropped: monitor, instanceof and
//!   sampling profiles; histograms of more than 255 types (LLVM's limit per site; the
//!   least frequent types are dropped); BCIs or branch indices outside the encodable range.
//!
//! # LLVM function record → iprof method ([`llvm_to_iprof`])
//!
//! A record whose name reads as a spelling above and whose value sites carry a consistent
//! shape (the structural hash recomputes, the counter and site counts match) is turned back
//! into its method's entries by the inverse mapping. Any other record (a function of a clang
//! or rustc profile) becomes a method of the synthetic declaring type
//! `llvm.profile.Function`, encoded so that converting it back gives the same record:
//!
//! * method name: the PGO name; signature `[llvm.profile.Function,
//!   llvm.profile.hash.0x<structural hash>, llvm.profile.kind.<flags>]`, plus
//!   `llvm.profile.name.0x<name hash>` when the name is unknown or not UTF-8 (then the method
//!   is named `llvm.md5.0x<name hash>`);
//! * call count (BCI 0): counter 0; a conditional site at BCI 1 holds counters 1.. as triples
//!   `(i, 0, counter i)`; a conditional site at BCI 2 holds the MC/DC bitmap bytes the same
//!   way;
//! * value site `s` of kind `k` (0 indirect call, 1 mem-op size, 2 vtable) is a
//!   virtual-invoke site at BCI `(k + 1) << 20 | s`, its values as types named by the
//!   function or vtable name (`llvm.profile.md5.0x<hash>` when unknown) or
//!   `llvm.profile.size.<n>` for sizes. iprof histograms are kept sorted by count and then
//!   type, so when values of equal count are in another order in the LLVM site (LLVM keeps
//!   the order in which they arrived, and the compiler promotes the first of equal targets),
//!   the site gets one more entry of count 0, the type `llvm.profile.order.<r0>.<r1>…`
//!   ([`ORDER_TYPE_PREFIX`]): the rank of each value, in site order, among the site's values
//!   sorted by descending count and then type name. Converting back restores that order.
//!
//! Counts above `i64::MAX` (iprof counts are Java longs) are capped, and temporal traces and
//! binary IDs dropped, each with a report line.

pub mod shape;
pub mod spelling;
mod to_iprof;
mod to_llvm;

use std::fmt;

pub use to_iprof::llvm_to_iprof;
pub use to_llvm::{ToLlvmOptions, iprof_to_llvm};

/// Declaring type of methods that stand for LLVM functions.
pub const LLVM_FUNCTION_TYPE: &str = "llvm.profile.Function";
/// Prefix of the type carrying an LLVM function's structural hash.
pub const HASH_TYPE_PREFIX: &str = "llvm.profile.hash.0x";
/// Prefix of the type carrying an LLVM profile's kind flags.
pub const KIND_TYPE_PREFIX: &str = "llvm.profile.kind.";
/// Prefix of the type carrying the name hash of a function whose name is unknown.
pub const NAME_TYPE_PREFIX: &str = "llvm.profile.name.0x";
/// Prefix of a value (type) known only by its MD5.
pub const MD5_TYPE_PREFIX: &str = "llvm.profile.md5.0x";
/// Prefix of a mem-op size value.
pub const SIZE_TYPE_PREFIX: &str = "llvm.profile.size.";
/// Prefix of the zero-count entry giving the order of a value site's values of equal count.
pub const ORDER_TYPE_PREFIX: &str = "llvm.profile.order.";
/// Method-name prefix of a function whose name is unknown.
pub const UNKNOWN_NAME_PREFIX: &str = "llvm.md5.0x";
/// BCI of the conditional site holding counters 1.. of an LLVM function.
pub const COUNTERS_BCI: i32 = 1;
/// BCI of the conditional site holding an LLVM function's MC/DC bitmap bytes.
pub const BITMAP_BCI: i32 = 2;

/// The BCI standing for value site `site` of kind number `kind`.
pub fn value_site_bci(kind: usize, site: usize) -> Option<i32> {
    let v = ((kind as u64 + 1) << 20) | site as u64;
    (site < (1 << 20))
        .then_some(v)
        .and_then(|v| i32::try_from(v).ok())
}

/// The indices of `entries` ((type name, count) pairs) sorted by descending count, then type
/// name: the order an iprof histogram holds them in, independent of type numbering.
pub(crate) fn canonical_order(entries: &[(&str, u64)]) -> Vec<usize> {
    let mut o: Vec<usize> = (0..entries.len()).collect();
    o.sort_by(|&a, &b| {
        entries[b]
            .1
            .cmp(&entries[a].1)
            .then_with(|| entries[a].0.cmp(entries[b].0))
    });
    o
}

/// What a conversion could not carry: one line per kind of loss or folding.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConvertReport {
    /// Human-readable lines, e.g. "monitorProfiles: 16 entries not representable in
    /// profdata, dropped".
    pub lines: Vec<String>,
}

impl ConvertReport {
    fn add(&mut self, n: u64, line: impl FnOnce(u64) -> String) {
        if n > 0 {
            self.lines.push(line(n));
        }
    }

    /// True if nothing was lost.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }
}

impl fmt::Display for ConvertReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for l in &self.lines {
            writeln!(f, "{l}")?;
        }
        Ok(())
    }
}
