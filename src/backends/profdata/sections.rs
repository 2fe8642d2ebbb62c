//! The sections after the hash table: binary IDs (v9+), vtable names (v12+) and temporal
//! traces (v10+, temporal profiles only). Each writer returns the section's offset, for the
//! header.

use super::ProfdataOptions;
use crate::bytes::{ByteWriter, pad8};
use crate::ir::{Profile, TemporalProfile};

/// Writes the binary IDs, sorted and deduplicated as LLVM does: the section's size, then
/// each ID's length and bytes padded to 8.
pub(super) fn write_binary_ids(w: &mut ByteWriter<'_>, profile: &Profile<'_>) -> u64 {
    let at = w.len();
    let mut ids: Vec<&Vec<u8>> = profile.binary_ids.iter().collect();
    ids.sort();
    ids.dedup();
    let size: u64 = ids
        .iter()
        .map(|b| 8 + b.len() as u64 + pad8(b.len() as u64))
        .sum();
    w.u64(size);
    for id in ids {
        w.u64(id.len() as u64);
        w.bytes(id);
        w.zeros(pad8(id.len() as u64) as usize);
    }
    at
}

/// Writes the vtable names, sorted, as a names blob (compressed), when asked to keep them;
/// an empty blob otherwise, as LLVM does.
pub(super) fn write_vtable_names(
    w: &mut ByteWriter<'_>,
    profile: &Profile<'_>,
    opts: &ProfdataOptions,
) -> u64 {
    let at = w.len();
    let blob = if opts.keep_vtable_symbols && !profile.vtable_names.is_empty() {
        let mut names: Vec<&[u8]> = profile.vtable_names.iter().map(|(_, n)| &**n).collect();
        names.sort_unstable();
        crate::codec::names_blob::encode(names, true)
    } else {
        Vec::new()
    };
    w.u64(blob.len() as u64);
    w.bytes(&blob);
    w.align8();
    at
}

/// Writes the temporal traces: their number, the stream size, then each trace's weight and
/// function hashes.
pub(super) fn write_traces(w: &mut ByteWriter<'_>, t: &TemporalProfile) -> u64 {
    let at = w.len();
    w.u64(t.traces.len() as u64);
    w.u64(t.stream_size);
    for tr in &t.traces {
        w.u64(tr.weight);
        w.u64(tr.functions.len() as u64);
        for f in &tr.functions {
            w.u64(*f);
        }
    }
    at
}
