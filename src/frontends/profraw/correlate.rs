//! Lightweight raw profiles made whole: a profile written by a binary built with
//! `-mllvm -profile-correlate=binary` has counters but no data records and no names (both
//! stay in the binary, see `frontends::correlate`). This module writes the profile again
//! with the binary's records and names in place, as an ordinary raw profile of the same
//! version, so that the one raw reader reads it; every other profile is copied unchanged.
//!
//! What LLVM's correlator keeps of a record is kept (name hash, structural hash, counter
//! offset, function address, number of counters; value sites are not correlated, as in
//! LLVM), and a second record for the same counters is dropped, as LLVM drops it. MC/DC
//! bitmaps are kept from raw version 11 on (clang 23+), as llvm-profdata-23 keeps them;
//! LLVM 22 and earlier, which read only older lightweight profiles, drop them, and so does
//! this module for those versions. Unlike llvm-profdata, which reads any binary's records over any profile's
//! counters, a profile goes only with a binary whose build ID it carries.

use super::header::{Field, RawHeader, RecordLayout};
use super::{Parsed, magic_at, parse_with_fallbacks};
use crate::bytes::{Endian, PointerWidth, pad8};
use crate::error::{Error, ErrorKind, Result};
use crate::frontends::correlate::{CorrelationBinary, Probe, Records};

/// True if `data` holds a raw profile whose records and names are left to a binary.
pub fn needs_binary(data: &[u8]) -> bool {
    each_profile(data, |p| Ok(is_lightweight(&p.header))).is_ok_and(|v| v.contains(&true))
}

/// True for the header of a profile written by a lightweight build: counters, no data
/// records, no names.
fn is_lightweight(h: &RawHeader) -> bool {
    h.num_data == 0 && h.names_size == 0 && h.num_counters > 0
}

/// The build IDs that the lightweight profiles of `data` carry, in file order.
pub fn lightweight_build_ids(data: &[u8]) -> Vec<Vec<u8>> {
    let per_profile = each_profile(data, |p| {
        Ok(if is_lightweight(&p.header) {
            p.binary_ids.iter().map(|id| id.to_vec()).collect()
        } else {
            Vec::new()
        })
    });
    per_profile
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .collect()
}

/// Each lightweight profile of `data`: its offset and the build IDs it carries (none for a
/// binary linked without one), in file order.
pub fn lightweight_profiles(data: &[u8]) -> Vec<(u64, Vec<Vec<u8>>)> {
    let per_profile = each_profile(data, |p| {
        Ok(is_lightweight(&p.header).then(|| {
            let ids = p.binary_ids.iter().map(|id| id.to_vec()).collect();
            (p.header.start, ids)
        }))
    });
    per_profile
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .collect()
}

/// `data` with every lightweight profile completed from the binary among `binaries` whose
/// build ID it carries; `None` if no profile of `data` is lightweight.
pub fn correlate(data: &[u8], binaries: &[&CorrelationBinary]) -> Result<Option<Vec<u8>>> {
    if !needs_binary(data) {
        return Ok(None);
    }
    let mut out = Vec::new();
    crate::sys::alloc::reserve(&mut out, data.len(), "a correlated raw profile")?;
    let mut copied = 0usize;
    each_profile(data, |p| {
        if is_lightweight(&p.header) {
            let start = p.header.start as usize;
            out.extend_from_slice(&data[copied..start]);
            let binary = binary_for(p, binaries)?;
            write_whole(data, p, binary, &mut out)?;
            copied = p.end;
        }
        Ok(())
    })?;
    out.extend_from_slice(&data[copied..]);
    Ok(Some(out))
}

/// Calls `f` on every profile of `data`, in order, and collects what it returns.
fn each_profile<T>(data: &[u8], mut f: impl FnMut(&Parsed<'_>) -> Result<T>) -> Result<Vec<T>> {
    let Some(first) = magic_at(data, 0) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    let mut pos = 0usize;
    let mut warnings = Vec::new();
    while pos < data.len() && out.len() < crate::bytes::limits::MAX_PROFILES_PER_FILE {
        let p = parse_with_fallbacks(data, pos, first, &mut warnings, false)?;
        out.push(f(&p)?);
        pos = p.end;
        while data.get(pos) == Some(&0) {
            pos += 1;
        }
        if magic_at(data, pos) != Some(first) {
            break;
        }
    }
    Ok(out)
}

/// Lower-case hex of a build ID.
fn hex(id: &[u8]) -> String {
    id.iter().map(|b| format!("{b:02x}")).collect()
}

/// The binary the lightweight profile `p` goes with: the one whose build ID the profile
/// carries; the only one named, if the profile carries no build ID. An error otherwise,
/// naming the IDs on both sides.
fn binary_for<'b>(
    p: &Parsed<'_>,
    binaries: &[&'b CorrelationBinary],
) -> Result<&'b CorrelationBinary> {
    let at = p.header.start;
    let found = binaries.iter().find(|b| {
        b.build_id
            .as_deref()
            .is_some_and(|id| p.binary_ids.contains(&id))
    });
    if let Some(b) = found {
        return Ok(b);
    }
    if p.binary_ids.is_empty() && binaries.len() == 1 {
        return Ok(binaries[0]);
    }
    let ours = if p.binary_ids.is_empty() {
        "no build ID".to_string()
    } else {
        let ids: Vec<String> = p.binary_ids.iter().map(|id| hex(id)).collect();
        format!("build ID {}", ids.join(", "))
    };
    let theirs: Vec<String> = binaries
        .iter()
        .map(|b| {
            let id = b.build_id.as_deref().map_or("no build ID".to_string(), hex);
            format!("{} ({id})", b.path.display())
        })
        .collect();
    let detail = if binaries.is_empty() {
        format!(
            "a lightweight profile ({ours}): its data records and names are in the binary it \
             came from, and no binary was given (--binary-file, --debug-info)"
        )
    } else {
        format!(
            "a lightweight profile with {ours} matches none of the binaries named: {}",
            theirs.join("; ")
        )
    };
    Err(Error::at(at, ErrorKind::Uncorrelated(detail)))
}

/// Appends to `out` the lightweight profile `p` of `data` with `binary`'s records and names.
fn write_whole(
    data: &[u8],
    p: &Parsed<'_>,
    binary: &CorrelationBinary,
    out: &mut Vec<u8>,
) -> Result<()> {
    let h = &p.header;
    check_fits(h, binary)?;
    let layout = h.record_layout();
    let mut records = records_of(h, layout, binary)?;
    if !keeps_bitmaps(h) {
        for r in &mut records {
            (r.bitmap_offset, r.num_bitmap_bytes) = (0, 0);
        }
    }
    let rs = layout.size;
    let n = records.len() as u64;
    let start = h.start as usize;
    let data_at = p.sections.data as usize;
    let counters_delta = n * rs + h.padding_before_counters;
    let mut header = data[start..start + h.size as usize].to_vec();
    let e = h.encoding.endian;
    patch(&mut header, h, Field::NumData, n, e);
    patch(
        &mut header,
        h,
        Field::NamesSize,
        binary.names.len() as u64,
        e,
    );
    patch(&mut header, h, Field::CountersDelta, counters_delta, e);
    out.extend_from_slice(&header);
    out.extend_from_slice(&data[start + h.size as usize..data_at]);
    for (i, r) in records.iter().enumerate() {
        let back = i as u64 * rs;
        let deltas = Deltas {
            counters: counters_delta.wrapping_sub(back),
            bitmap: h.bitmap_delta.wrapping_sub(back),
            uniform: h.uniform_counters_delta.wrapping_sub(back),
        };
        write_record(out, r, layout, e, &deltas);
    }
    out.extend_from_slice(&data[data_at..p.sections.names as usize]);
    out.extend_from_slice(&binary.names);
    out.resize(out.len() + pad8(binary.names.len() as u64) as usize, 0);
    out.extend_from_slice(&data[p.sections.names as usize..p.end]);
    Ok(())
}

/// True if LLVM's correlator keeps the MC/DC bitmaps of a profile of this header's version:
/// from version 11 (llvm-profdata-23, the only release that correlates it); LLVM 19–22
/// write no bitmap for the older versions.
fn keeps_bitmaps(h: &RawHeader) -> bool {
    h.version >= 11
}

/// Refuses a binary whose pointer width or byte order differs from the profile's (it cannot
/// have written it) and profiles older than version 8, which no lightweight build writes.
fn check_fits(h: &RawHeader, binary: &CorrelationBinary) -> Result<()> {
    let little = h.encoding.endian == Endian::Little;
    if binary.width != h.encoding.width || binary.little_endian != little {
        return Err(Error::at(
            h.start,
            ErrorKind::Uncorrelated(format!(
                "the profile is {} but the binary {} is {}-bit {}-endian: it did not write it",
                h.encoding.describe(),
                binary.path.display(),
                binary.width.bytes() * 8,
                if binary.little_endian {
                    "little"
                } else {
                    "big"
                },
            )),
        ));
    }
    if h.version < 8 {
        return Err(Error::at(
            h.start + 8,
            ErrorKind::Uncorrelated(format!(
                "a raw profile of version {} without data records: correlation with a binary \
                 needs version 8 or later",
                h.version
            )),
        ));
    }
    check_counters_size(h, binary)
}

/// Refuses a binary whose counters section does not hold as many counters as the profile:
/// the runtime writes that whole section, so a binary with a different one did not write
/// the profile. This is what catches a wrong binary when neither has a build ID.
fn check_counters_size(h: &RawHeader, binary: &CorrelationBinary) -> Result<()> {
    let section = binary.counters.end - binary.counters.start;
    let in_binary = section / h.counter_entry_size();
    if in_binary == h.num_counters {
        return Ok(());
    }
    Err(Error::at(
        h.start,
        ErrorKind::Uncorrelated(format!(
            "the profile has {} counters but the counters section (__llvm_prf_cnts) of {} \
             holds {in_binary}: it did not write it",
            h.num_counters,
            binary.path.display(),
        )),
    ))
}

/// The binary's records as probes: those of the debug info as they are; the data records of
/// `__llvm_covdata` read in the profile's record layout, the first of each counter offset
/// only (a record whose counters lie outside the counters section is an error naming its
/// offset in `__llvm_covdata`).
fn records_of(
    h: &RawHeader,
    layout: RecordLayout,
    binary: &CorrelationBinary,
) -> Result<Vec<Probe>> {
    let d = match &binary.records {
        Records::Probes(p) => return Ok(p.clone()),
        Records::Covdata(d) => d,
    };
    let rs = layout.size as usize;
    let e = h.encoding.endian;
    // LLVM reads up to the end of the section: the last record may lack its padding.
    let count = d.len().div_ceil(rs);
    let mut seen = std::collections::HashSet::new();
    let mut probes = Vec::new();
    crate::sys::alloc::reserve(&mut probes, count, "correlated data records")?;
    let at = |i: usize| i * rs;
    let bad = |i: usize, what: String| {
        Error::new(ErrorKind::Uncorrelated(format!(
            "{}: __llvm_covdata record {i} (section offset {:#x}): {what}",
            binary.path.display(),
            at(i)
        )))
    };
    for i in 0..count {
        let r = &d[at(i)..];
        let ptr = |off: usize| match layout.width {
            PointerWidth::W64 => e.u64_at(r, off),
            PointerWidth::W32 => e.u32_at(r, off).map(u64::from),
        };
        let fields = (
            e.u64_at(r, 0),
            e.u64_at(r, 8),
            ptr(layout.counter_ptr),
            ptr(layout.function_ptr),
            e.u32_at(r, layout.num_counters),
        );
        let (Some(name), Some(hash), Some(counter_ptr), Some(fptr), Some(nc)) = fields else {
            return Err(bad(i, "the section ends inside the record".into()));
        };
        let (bitmap_offset, num_bitmap_bytes) = if keeps_bitmaps(h) {
            bitmap_of(r, layout, e, binary).map_err(|what| bad(i, what))?
        } else {
            (0, 0)
        };
        if !binary.counters.contains(&counter_ptr) {
            return Err(bad(
                i,
                format!(
                    "its counters at {counter_ptr:#x} are outside __llvm_prf_cnts [{:#x}, {:#x})",
                    binary.counters.start, binary.counters.end
                ),
            ));
        }
        let counter_offset = counter_ptr - binary.counters.start;
        if seen.insert(counter_offset) {
            probes.push(Probe {
                name_ref: name,
                func_hash: hash,
                counter_offset,
                function_ptr: fptr,
                num_counters: nc,
                bitmap_offset,
                num_bitmap_bytes,
            });
        }
    }
    if probes.is_empty() {
        return Err(bad(0, "the binary holds no data records".into()));
    }
    Ok(probes)
}

/// The MC/DC bitmap of the `__llvm_covdata` record `r`: its offset in `__llvm_prf_bits` and
/// its number of bytes, `(0, 0)` without one; an error if the bytes lie outside the section.
fn bitmap_of(
    r: &[u8],
    layout: RecordLayout,
    e: Endian,
    binary: &CorrelationBinary,
) -> std::result::Result<(u64, u32), String> {
    let (Some(ptr_at), Some(bytes_at)) = (layout.bitmap_ptr, layout.num_bitmap_bytes) else {
        return Ok((0, 0));
    };
    let ptr = match layout.width {
        PointerWidth::W64 => e.u64_at(r, ptr_at),
        PointerWidth::W32 => e.u32_at(r, ptr_at).map(u64::from),
    };
    let (Some(ptr), Some(bytes)) = (ptr, e.u32_at(r, bytes_at)) else {
        return Err("the section ends inside the record".into());
    };
    if bytes == 0 {
        return Ok((0, 0));
    }
    let bits = &binary.bitmaps;
    if !bits.contains(&ptr) || ptr.saturating_add(bytes.into()) > bits.end {
        return Err(format!(
            "its {bytes} MC/DC bitmap bytes at {ptr:#x} are outside __llvm_prf_bits [{:#x}, \
             {:#x})",
            bits.start, bits.end
        ));
    }
    Ok((ptr - bits.start, bytes))
}

/// What each record's relative pointers are relative to (v8+: the distance from the record
/// to the start of the section the pointer points into).
struct Deltas {
    counters: u64,
    bitmap: u64,
    uniform: u64,
}

/// Appends one data record in the profile's layout: the probe's fields, no value sites; the
/// counter and bitmap pointers made relative as the runtime writes them.
fn write_record(out: &mut Vec<u8>, p: &Probe, layout: RecordLayout, e: Endian, d: &Deltas) {
    let at = out.len();
    out.resize(at + layout.size as usize, 0);
    let rec = &mut out[at..];
    rec[0..8].copy_from_slice(&e.u64_bytes(p.name_ref));
    rec[8..16].copy_from_slice(&e.u64_bytes(p.func_hash));
    let put_ptr = |rec: &mut [u8], off: usize, v: u64| match layout.width {
        PointerWidth::W64 => rec[off..off + 8].copy_from_slice(&e.u64_bytes(v)),
        PointerWidth::W32 => rec[off..off + 4].copy_from_slice(&e.u32_bytes(v as u32)),
    };
    put_ptr(
        rec,
        layout.counter_ptr,
        p.counter_offset.wrapping_add(d.counters),
    );
    if let Some(off) = layout.bitmap_ptr {
        put_ptr(rec, off, p.bitmap_offset.wrapping_add(d.bitmap));
    }
    if let Some(off) = layout.uniform_ptr {
        put_ptr(rec, off, d.uniform);
    }
    put_ptr(rec, layout.function_ptr, p.function_ptr);
    rec[layout.num_counters..layout.num_counters + 4].copy_from_slice(&e.u32_bytes(p.num_counters));
    if let Some(off) = layout.num_bitmap_bytes {
        rec[off..off + 4].copy_from_slice(&e.u32_bytes(p.num_bitmap_bytes));
    }
}

/// Writes `v` into the header field `f` of `header` (a copy of the header's bytes).
fn patch(header: &mut [u8], h: &RawHeader, f: Field, v: u64, e: Endian) {
    if let Some(i) = h.fields.iter().position(|x| *x == f) {
        header[8 * i..8 * i + 8].copy_from_slice(&e.u64_bytes(v));
    }
}
