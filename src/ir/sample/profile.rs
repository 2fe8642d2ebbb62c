//! A whole sample profile: function profiles by context, profile-level flags, the profile
//! symbol list.

use crate::bytes::stack::deep;
use std::collections::{BTreeSet, HashMap};

use super::{FunctionSamples, SampleContext};
use crate::ir::fx::FxBuildHasher;
use crate::ir::summary::Summary;
use crate::ir::symbols::Name;

/// The encoding a sample profile was read from (or is to be written in).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SampleFormat {
    /// LLVM's text format.
    Text,
    /// LLVM's binary format (`SPF_Binary`, magic `SPROF42\xff`).
    Binary,
    /// LLVM's extensible binary format (`SPF_Ext_Binary`, sections).
    ExtBinary,
    /// GCC's AutoFDO `.gcov` format.
    Gcc,
}

impl SampleFormat {
    /// The option name llvm-profdata uses for the format (`text`, `binary`, `extbinary`,
    /// `gcc`).
    pub fn name(self) -> &'static str {
        match self {
            SampleFormat::Text => "text",
            SampleFormat::Binary => "binary",
            SampleFormat::ExtBinary => "extbinary",
            SampleFormat::Gcc => "gcc",
        }
    }
}

/// Profile-level properties, LLVM's `FunctionSamples::ProfileIs*` statics and the extbinary
/// section flags that carry them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SampleFlags {
    /// Top-level profiles are keyed by full calling context (CSSPGO): the text format
    /// writes them as `[a:1 @ b]`.
    pub context_sensitive: bool,
    /// Locations are pseudo-probe indices; every function carries a CFG checksum
    /// (`!CFGChecksum`).
    pub probe_based: bool,
    /// Contexts carry pre-inliner decisions (`!Attributes` with the should-be-inlined bit).
    pub preinlined: bool,
    /// Discriminators are flow-sensitive (extbinary summary flag).
    pub fs_discriminator: bool,
    /// Names are stored as MD5 hashes only (extbinary name table flag).
    pub md5_names: bool,
    /// The profile is partial: functions absent from it are unknown, not cold (extbinary
    /// summary flag, `--gen-partial-profile`).
    pub partial: bool,
    /// Whether reading this input assigns LLVM's `FunctionSamples::ProfileIsProbeBased`
    /// static (to `probe_based`): a text input always does, an extbinary one only through a
    /// function metadata section that is not empty, a binary one never. A merge uses it to
    /// follow llvm-profdata's kind check, which compares that static before and after each
    /// input; writers ignore it.
    pub sets_probe_flag: bool,
}

/// The profile symbol list of an extbinary profile: every function symbol of the profiled
/// binary, so that a compiler can tell a cold function (listed, no samples) from a new one
/// (not listed). Names are kept sorted and unique.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProfileSymbolList {
    /// The symbols.
    pub names: BTreeSet<Name>,
    /// Whether the writer should compress the section (extbinary).
    pub compress: bool,
}

/// A sample profile: top-level function profiles keyed by context.
///
/// Invariant kept by readers and passes: each value's `name` is the key's function
/// ([`SampleContext::function`]); in a context-sensitive profile every key is a
/// [`SampleContext::Context`] and otherwise every key is a [`SampleContext::Function`] —
/// except where LLVM itself accepts a mix (a text file mixing both reads as
/// context-sensitive when any key is a context, as LLVM's reader decides).
///
/// The map has no order of its own: back-ends sort (LLVM writes by total samples,
/// descending, then by [`SampleContext`] order).
#[derive(Debug, Clone, Default)]
pub struct SampleProfile {
    /// Function profiles by context.
    pub functions: HashMap<SampleContext, FunctionSamples, FxBuildHasher>,
    /// Profile-level properties.
    pub flags: SampleFlags,
    /// The profile symbol list, if the input had one.
    pub symbol_list: Option<ProfileSymbolList>,
    /// The encoding the profile was read from, if it was read.
    pub format: Option<SampleFormat>,
    /// The keys of `functions` in the order LLVM's `SampleProfileMap` (a libstdc++
    /// `unordered_map` keyed by the context's hash) had them inserted: readers push each new
    /// top-level context as they meet it; a merge into a new map pushes each input's new
    /// contexts in that input map's iteration order. The extbinary writer replays the
    /// container from it, because LLVM writes the function-metadata section in the map's
    /// iteration order. Empty when unknown (writers then fall back to the sorted order).
    pub insertion_order: Vec<SampleContext>,
    /// Keys of `insertion_order` that LLVM's map erased after all those insertions, in the
    /// order erased (a size-limited write drops the coldest profiles this way): their
    /// insertion still shapes the map's iteration order, which erasing does not rebuild.
    /// Usually empty.
    pub erased: Vec<SampleContext>,
    /// For each key of `erased` (in order, non-decreasing), how many keys of
    /// `insertion_order` LLVM's map had been given when it was erased; a key without an
    /// entry here was erased after all of them (a size-limited write). A layout conversion
    /// erases and inserts in turn, and the map's order depends on that interleaving.
    pub erased_after: Vec<usize>,
    /// The profile summary stored in the file (binary and extbinary encodings), as LLVM's
    /// reader keeps it: what llvm-profdata's `show --sample --detailed-summary`,
    /// `--hot-func-list` and `overlap --sample` use for such inputs. `None` for text
    /// inputs (LLVM computes their summary when it reads them) and for profiles built by
    /// passes; see [`super::summary::of_reader`].
    pub stored_summary: Option<Summary>,
    /// How the LLVM release being followed keys a calling context in its map (LLVM 23
    /// changed it), which decides the map's iteration order replayed from
    /// `insertion_order`.
    pub context_hash: super::ContextHash,
}

impl SampleProfile {
    /// An empty profile.
    pub fn new() -> Self {
        Self::default()
    }

    /// The profile of `context`, created empty (named after the context's function) if
    /// missing.
    pub fn entry(&mut self, context: SampleContext) -> &mut FunctionSamples {
        self.functions
            .entry(context)
            .or_insert_with_key(|k| FunctionSamples::new(k.function().clone()))
    }

    /// The top-level profiles in the order LLVM writes them: most total samples first,
    /// equal totals in [`SampleContext`] order.
    pub fn sorted(&self) -> Vec<(&SampleContext, &FunctionSamples)> {
        let mut v: Vec<(&SampleContext, &FunctionSamples)> = self.functions.iter().collect();
        v.sort_by(|a, b| {
            b.1.total_samples
                .cmp(&a.1.total_samples)
                .then_with(|| a.0.cmp(b.0))
        });
        v
    }

    /// True if any function name (top-level, context frame, inlined callee or call target)
    /// contains LLVM's `.__uniq.` suffix.
    pub fn has_uniq_suffix(&self) -> bool {
        fn in_fs(f: &FunctionSamples) -> bool {
            has(&f.name)
                || f.body.values().any(|r| r.call_targets.keys().any(has))
                || f.callsites
                    .values()
                    .any(|s| s.values().any(|c| deep(|| in_fs(c))))
        }
        fn has(f: &super::FunctionId) -> bool {
            f.as_bytes()
                .is_some_and(|b| b.windows(8).any(|w| w == b".__uniq."))
        }
        self.functions
            .iter()
            .any(|(k, f)| k.frames().iter().any(|fr| has(&fr.function)) || in_fs(f))
    }
}
