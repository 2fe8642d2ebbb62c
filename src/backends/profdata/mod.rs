//! Back-end for LLVM indexed profiles (`.profdata`), index versions 7 to 14.
//!
//! The file is: header (40–72 bytes by version), the profile summary (and a second one for
//! context-sensitive records when the profile is flagged CS), the on-disk chained hash table
//! keyed by function name whose data are the records of that name, then the binary-ID section
//! (v9+), the vtable-names section (v12+) and the temporal-trace section (v10+, temporal
//! profiles only). All integers are little-endian; all offsets absolute.
//!
//! For the same merged records this writer produces the same bytes as `llvm-profdata merge`
//! of the LLVM release asked for ([`ProfdataOptions::llvm`]; LLVM 22/23 otherwise): names are
//! inserted into a table that grows like LLVM's ([`crate::codec::chained_hash`]) in that
//! release's order ([`target`], [`string_map`]), a name's records are ordered like LLVM's
//! `SmallDenseMap` ([`record_order`]), and the summary is recomputed from what is written
//! (`ir::summary`). The one exception is a non-empty vtable-names section, whose zlib bytes and
//! name order depend on LLVM's zlib build and `StringSet` order.
//!
//! The file is always readable by the LLVM that reads its index version: what that version
//! cannot hold (vtable value sites before 12, MC/DC bitmaps before 11, temporal traces before
//! 10, flags the release does not know) is left out with one warning per kind, or refused
//! with [`ProfdataOptions::strict`]; binary IDs before 9 are dropped silently, as the
//! release's llvm-profdata drops them. (LLVM's own `--write-prev-version`
//! keeps vtable sites in version 11, which LLVM 18 then cannot read.)

mod fe_hash;
mod groups;
mod losses;
mod prefetch;
pub mod record_order;
mod sections;
pub mod string_map;
mod table;
pub mod target;

use crate::bytes::ByteWriter;
use crate::codec::indexed_header::{self, Field, IndexedHeader, RELEASES};
use crate::codec::summary as codec_summary;
use crate::error::{Error, ErrorKind, Result, Warning};
use crate::ir::summary::SummaryBuilder;
use crate::ir::{Profile, ProfileKind};
use target::WriterModel;

/// Oldest index version written (the first of [`indexed_header::RELEASES`]).
pub const OLDEST_WRITTEN: u32 = RELEASES[0].0;
/// Newest index version written: the newest read ([`indexed_header::NEWEST_VERSION`]).
pub const NEWEST_WRITTEN: u32 = indexed_header::NEWEST_VERSION;
/// Version written when nothing is asked for: the one `llvm-profdata` 22 writes, read by
/// LLVM 22 and later (and by rustc built on them), and the one clang 22 needs to pick the
/// right hash for front-end profiles.
pub const DEFAULT_VERSION: u32 = 13;

/// Magic of an indexed profile.
pub const MAGIC: u64 = crate::codec::magic::INDEXED_MAGIC;

/// The newest index version LLVM release `llvm_major` reads, if we can write it: the
/// version of the last row of [`indexed_header::RELEASES`] at or before that release.
pub fn version_for_llvm(llvm_major: u32) -> Option<u32> {
    RELEASES
        .iter()
        .rev()
        .find(|&&(_, first)| first <= llvm_major)
        .map(|&(version, _)| version)
}

/// Options of the indexed writer.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfdataOptions {
    /// Index version, [`OLDEST_WRITTEN`]..=[`NEWEST_WRITTEN`].
    pub version: u32,
    /// Drop names none of whose records has a non-zero counter or bitmap byte.
    pub sparse: bool,
    /// Write the vtable names the inputs carried (`--keep-vtable-symbols`); LLVM writes an
    /// empty vtable-names section otherwise.
    pub keep_vtable_symbols: bool,
    /// Write the records that share a name in the order they come in the profile instead of
    /// LLVM's `SmallDenseMap` order. Re-writing a single indexed file this way reproduces it
    /// byte for byte (LLVM's order is not idempotent when two structural hashes collide).
    pub preserve_record_order: bool,
    /// The LLVM release (major version) whose `llvm-profdata merge` bytes to reproduce; None
    /// writes [`ProfdataOptions::version`] as the current release does.
    pub llvm: Option<u32>,
    /// Refuse, instead of dropping with a warning, what the written version or release cannot
    /// hold.
    pub strict: bool,
}

impl Default for ProfdataOptions {
    fn default() -> Self {
        ProfdataOptions {
            version: DEFAULT_VERSION,
            sparse: false,
            keep_vtable_symbols: false,
            preserve_record_order: false,
            llvm: None,
            strict: false,
        }
    }
}

/// Writes `profile` as an indexed profile.
///
/// Every record's name must be in `profile.names`. Records sharing a key must already be
/// merged. Warnings (e.g. about front-end hash schemes) are returned with the bytes.
pub fn write(profile: &Profile<'_>, opts: &ProfdataOptions) -> Result<(Vec<u8>, Vec<Warning>)> {
    let capacity = 4096
        + profile
            .records
            .iter()
            .map(|r| table::record_size(opts.version, r) as usize + 48)
            .sum::<usize>();
    let mut w = ByteWriter::with_capacity(capacity);
    let warnings = write_into(profile, opts, &mut w)?;
    Ok((w.into_inner(), warnings))
}

/// Writes `profile` as an indexed profile to `sink`, streamed (about a megabyte in
/// memory at a time; the offsets written before the records are patched by seeking back),
/// so the output is never held in memory whole. Returns the writer's warnings.
pub fn write_to(
    profile: &Profile<'_>,
    opts: &ProfdataOptions,
    sink: &mut dyn crate::bytes::SeekWrite,
) -> Result<Vec<Warning>> {
    let mut w = ByteWriter::streaming(sink);
    let warnings = write_into(profile, opts, &mut w)?;
    w.finish().map_err(|e| Error::new(ErrorKind::Io(e)))?;
    Ok(warnings)
}

/// Writes `profile` into `w` (see [`write`]): checks and groups the records, orders the names
/// as the release targeted inserts them, then writes the header, the summaries, the hash
/// table and the sections, and patches the header and summaries with what was written.
fn write_into(
    profile: &Profile<'_>,
    opts: &ProfdataOptions,
    w: &mut ByteWriter<'_>,
) -> Result<Vec<Warning>> {
    let version = opts.version;
    if !(OLDEST_WRITTEN..=NEWEST_WRITTEN).contains(&version) {
        return Err(Error::new(ErrorKind::Usage(format!(
            "index version {version} cannot be written: choose {OLDEST_WRITTEN} to {NEWEST_WRITTEN}"
        ))));
    }
    let by_hash = groups::by_name_hash(&profile.records);
    let mut groups = groups::group_by_name(profile, &by_hash)?;
    let model = opts
        .llvm
        .map(WriterModel::for_llvm)
        .unwrap_or_else(WriterModel::current);
    let mut warnings = losses::losses_or_refusal(profile, opts, &model)?;
    groups::order_groups(&mut groups, &profile.records, opts, &model);
    let (kind, temporal) = written_kind(profile.kind, version, &model);
    if !kind.is_ir() {
        fe_hash::fe_hash_warnings(profile, version, &mut warnings);
    }
    let cs = kind.contains(ProfileKind::CONTEXT_SENSITIVE);

    // Header and summaries, patched at the end.
    let mut header = IndexedHeader {
        version_word: u64::from(version) | kind.indexed_variant_bits(),
        ..IndexedHeader::default()
    };
    let header_at = w.len();
    indexed_header::write(w, &header);
    let summary_at = w.len();
    w.zeros(codec_summary::SERIALIZED_SIZE as usize);
    let cs_summary_at = w.len();
    if cs {
        w.zeros(codec_summary::SERIALIZED_SIZE as usize);
    }

    let new_summary = || {
        if model.summary_skips_pseudo {
            SummaryBuilder::new()
        } else {
            SummaryBuilder::counting_pseudo()
        }
    };
    let mut table = table::write(
        w,
        profile,
        opts,
        model.record_hash,
        &groups,
        new_summary,
        &mut warnings,
    );
    header.hash_offset = table.offset;
    if indexed_header::has(version, Field::BinaryIdOffset) {
        header.binary_id_offset = sections::write_binary_ids(w, profile);
    }
    if indexed_header::has(version, Field::VTableNamesOffset) {
        header.vtable_names_offset = sections::write_vtable_names(w, profile, opts);
    }
    if temporal {
        header.temporal_offset = sections::write_traces(w, &profile.temporal);
    }

    let mut hw = ByteWriter::new();
    indexed_header::write(&mut hw, &header);
    w.patch_bytes(header_at, hw.as_slice());
    patch_summary(w, summary_at, &mut table.summary);
    if cs {
        patch_summary(w, cs_summary_at, &mut table.cs_summary);
    }
    Ok(warnings)
}

/// The profile kind written for `kind` at `version` by `model`'s release (flags it does not
/// know dropped; the temporal flag only where traces are written), and whether the temporal
/// traces are written (where the header has their offset: version 10 and later).
fn written_kind(kind: ProfileKind, version: u32, model: &WriterModel) -> (ProfileKind, bool) {
    let temporal =
        kind.contains(ProfileKind::TEMPORAL) && indexed_header::has(version, Field::TemporalOffset);
    let mut unknown = kind;
    unknown.remove(model.known_flags);
    let mut written = kind;
    written.remove(unknown);
    if !temporal {
        written.remove(ProfileKind::TEMPORAL);
    }
    (written, temporal)
}

/// Writes the summary `sum` has built over the zeros reserved for it at `at`.
fn patch_summary(w: &mut ByteWriter<'_>, at: u64, sum: &mut SummaryBuilder) {
    let mut sw = ByteWriter::new();
    codec_summary::write(&sum.finish(), &mut sw);
    w.patch_bytes(at, sw.as_slice());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The release → version mapping made from the table is the one LLVM's releases read.
    #[test]
    fn versions_for_releases() {
        let want = |m: u32| match m {
            12..=14 => Some(7),
            15 => Some(8),
            16 => Some(9),
            17 => Some(10),
            18 => Some(11),
            19..=21 => Some(12),
            22 => Some(13),
            23.. => Some(14),
            _ => None,
        };
        for m in 0..40 {
            assert_eq!(version_for_llvm(m), want(m), "LLVM {m}");
        }
        assert_eq!((OLDEST_WRITTEN, NEWEST_WRITTEN), (7, 14));
    }
}
