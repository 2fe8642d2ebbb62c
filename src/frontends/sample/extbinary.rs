//! Reader of LLVM's `SPF_Ext_Binary` sample profiles (`llvm-profdata merge --sample
//! --extbinary`, the default binary format, and `llvm-profgen`'s output).
//!
//! Layout: magic, version 103, a section table (`u64` count, then per section four
//! little-endian `u64`s: type, flags, offset from the file's start, size), then the
//! sections. Sections are read in table order, as LLVM does; empty ones are skipped, a
//! compressed one is `ULEB128 uncompressed size, ULEB128 compressed size, zlib data`. What each
//! section holds is in [`crate::codec::sample_binary`]; this reader follows
//! `SampleProfileReaderExtBinaryBase` as llvm-profdata uses it (no module):
//!
//! * the function offset table is not read (LLVM skips it when it reads every profile);
//! * metadata (checksums, attributes) applies to the profiles read before it;
//! * unknown section types are skipped;
//! * every section must be used up exactly, as LLVM checks.
//!
//! Errors name the file offset; inside a compressed section they name the section's offset
//! and the position in its uncompressed data.

use crate::bytes::limits::InflateBudget;
use crate::bytes::stack::deep;
use crate::codec::names_blob::inflate;
use crate::codec::sample_binary::{
    SampleCursor, SampleMagic, flag, read_body, read_header, read_plain_names, read_summary, sec,
};
use crate::error::{Error, ErrorKind, Result};
use crate::ir::sample::{
    ContextAttributes, ContextFrame, FunctionId, FunctionSamples, LineLocation, ProfileSymbolList,
    SampleContext, SampleFormat, SampleProfile,
};
use crate::ir::symbols::Name;

pub use crate::codec::sample_binary::SectionEntry;

/// Reads the magic, version and section table.
pub fn read_section_table(data: &[u8]) -> Result<Vec<SectionEntry>> {
    let mut r = SampleCursor::new(data, 0);
    read_header(&mut r, SampleMagic::ExtBinary)?;
    let n = r.u64_le("section table: number of sections")?;
    // Each entry takes 32 bytes: more than the file holds is truncation, checked before any
    // allocation.
    let room = r.c.remaining() as u64 / 32;
    if n > room {
        return Err(r.c.truncated("section table", n.saturating_mul(32)));
    }
    let mut v = crate::sys::alloc::with_capacity(n as usize, "the section table")?;
    for _ in 0..n {
        let entry_at = r.offset();
        v.push(SectionEntry {
            kind: r.u64_le("section table: type")?,
            flags: r.u64_le("section table: flags")?,
            offset: r.u64_le("section table: offset")?,
            size: r.u64_le("section table: size")?,
            entry_at,
        });
    }
    Ok(v)
}

/// State carried between sections.
#[derive(Default)]
struct State {
    names: Vec<FunctionId>,
    cs_names: Vec<Box<[ContextFrame]>>,
    context_sensitive: bool,
    /// A function profile section has been read: whether the profile is context-sensitive
    /// is settled. A summary section after it that says "context-sensitive" is not
    /// followed (LLVM's reader follows it and its writer then writes a file no reader can
    /// read: context references into an empty context table).
    profiles_read: bool,
    probe_based: bool,
    has_attributes: bool,
    /// The summary section said the discriminators are flow-sensitive.
    fs: bool,
    /// The discriminator bits kept when they are.
    fs_mask: u32,
}

/// The bytes of section `e` of `data`, inflated into `inflated` if the section is
/// compressed (then the second value is true): the section must lie within the file, and a
/// compressed one must say how long it is uncompressed, within what is left of `budget`
/// (the file's compressed sections share one).
pub(super) fn section_bytes<'d>(
    data: &'d [u8],
    e: &SectionEntry,
    inflated: &'d mut Vec<u8>,
    budget: &mut InflateBudget,
) -> Result<(&'d [u8], bool)> {
    let end = e
        .offset
        .checked_add(e.size)
        .filter(|&x| x <= data.len() as u64);
    let Some(end) = end else {
        let available = (data.len() as u64).saturating_sub(e.offset);
        return Err(Error::at(
            e.offset.min(data.len() as u64),
            ErrorKind::Truncated {
                what: section_name(e.kind),
                needed: e.size,
                available,
            },
        ));
    };
    let raw = &data[e.offset as usize..end as usize];
    if e.flags & flag::COMPRESS == 0 {
        return Ok((raw, false));
    }
    let mut r = SampleCursor::new(raw, e.offset);
    let ulen = r.num("compressed section: uncompressed size")?;
    let clen = r.num("compressed section: compressed size")?;
    let payload_at = r.offset();
    let payload = r.c.bytes(clen, "compressed section: zlib data")?;
    inflate(
        payload,
        ulen,
        inflated,
        budget,
        "the compressed sections of a sample profile",
    )
    .map_err(|err| err.rebase(payload_at))?;
    Ok((inflated, true))
}

/// Reads a whole `SPF_Ext_Binary` file.
pub fn read(data: &[u8]) -> Result<SampleProfile> {
    read_masked(data, u32::MAX)
}

/// Reads a whole `SPF_Ext_Binary` file; if its summary section says its discriminators are
/// flow-sensitive, the body records and inlined callsites of the profiles read after that
/// section keep only the bits of `fs_mask` (llvm-profdata's `--fs-discriminator-pass`), as
/// LLVM's reader masks them. The locations of the function-metadata section's callsites and
/// of calling contexts are not masked, as in LLVM.
pub fn read_masked(data: &[u8], fs_mask: u32) -> Result<SampleProfile> {
    let table = read_section_table(data)?;
    let mut profile = SampleProfile::new();
    profile.format = Some(SampleFormat::ExtBinary);
    let mut st = State {
        fs_mask,
        ..State::default()
    };
    let mut inflated = Vec::new();
    let mut budget = InflateBudget::new()?;
    for e in &table {
        if e.size == 0 {
            continue;
        }
        let (bytes, compressed) = section_bytes(data, e, &mut inflated, &mut budget)?;
        if compressed {
            let section_at = e.offset;
            read_section(bytes, 0, e, &mut st, &mut profile).map_err(|err| {
                let inner = err.offset().unwrap_or(0);
                Error::at(
                    section_at,
                    ErrorKind::Malformed {
                        what: section_name(e.kind),
                        detail: format!(
                            "compressed section, at offset {inner} of its uncompressed data: {}",
                            err.kind()
                        ),
                    },
                )
            })?;
        } else {
            read_section(bytes, e.offset, e, &mut st, &mut profile)?;
        }
    }
    profile.flags.context_sensitive = st.context_sensitive;
    profile.flags.probe_based = st.probe_based;
    Ok(profile)
}

/// A short name of a section type for messages.
pub fn section_name(kind: u64) -> &'static str {
    match kind {
        sec::SUMMARY => "profile summary section",
        sec::NAME_TABLE => "name table section",
        sec::SYMBOL_LIST => "profile symbol list section",
        sec::FUNC_OFFSET_TABLE => "function offset table section",
        sec::FUNC_METADATA => "function metadata section",
        sec::CS_NAME_TABLE => "context name table section",
        sec::LBR_PROFILE => "function profile section",
        _ => "unknown section",
    }
}

fn read_section(
    bytes: &[u8],
    base: u64,
    e: &SectionEntry,
    st: &mut State,
    profile: &mut SampleProfile,
) -> Result<()> {
    let mut r = SampleCursor::new(bytes, base);
    match e.kind {
        sec::SUMMARY => {
            profile.stored_summary = Some(read_summary(&mut r)?.to_summary());
            let f = &mut profile.flags;
            f.partial |= e.flags & flag::PARTIAL != 0;
            if e.flags & flag::FULL_CONTEXT != 0 && !st.profiles_read {
                st.context_sensitive = true;
            }
            f.preinlined |= e.flags & flag::PRE_INLINED != 0;
            f.fs_discriminator |= e.flags & flag::FS_DISCRIMINATOR != 0;
            st.fs |= e.flags & flag::FS_DISCRIMINATOR != 0;
            if e.flags & flag::HAS_VTABLE_TYPE_PROF != 0 {
                return Err(Error::malformed(
                    e.entry_at,
                    "profile summary section",
                    "the profile has vtable type counts (LLVM 22's \
                     -extbinary-write-vtable-type-prof), which this reader does not read",
                ));
            }
        }
        sec::NAME_TABLE => {
            let md5 = e.flags & flag::MD5_NAME != 0;
            profile.flags.md5_names |= md5;
            st.names = if e.flags & flag::FIXED_LENGTH_MD5 != 0 {
                let n = r.num("name table: number of MD5 names")?;
                if n > r.c.remaining() as u64 / 8 {
                    return Err(r
                        .c
                        .truncated("fixed-length MD5 name table", n.saturating_mul(8)));
                }
                let mut v = crate::sys::alloc::with_capacity(n as usize, "the name table")?;
                for _ in 0..n {
                    v.push(FunctionId::Md5(r.u64_le("name table: MD5")?));
                }
                v
            } else if md5 {
                let n = r.num("name table: number of MD5 names")?;
                let mut v = crate::sys::alloc::with_capacity(
                    n.min(r.c.remaining() as u64) as usize,
                    "the name table",
                )?;
                for _ in 0..n {
                    v.push(FunctionId::Md5(r.num("name table: MD5")?));
                }
                v
            } else {
                read_plain_names(&mut r)?
            };
        }
        sec::CS_NAME_TABLE => {
            let n = r.num("context name table: number of contexts")?;
            let mut v = crate::sys::alloc::with_capacity(
                n.min(r.c.remaining() as u64) as usize,
                "the context name table",
            )?;
            for _ in 0..n {
                let at = r.offset();
                let frames = r.num_u32("context: number of frames")?;
                if frames == 0 {
                    return Err(Error::malformed(at, "context", "a context without frames"));
                }
                let mut fr = Vec::with_capacity((frames as usize).min(r.c.remaining()));
                for _ in 0..frames {
                    let i = r.index(st.names.len(), "context frame: name index")?;
                    let line = r.line_offset("context frame: line offset")?;
                    let disc = r.num("context frame: discriminator")? as u32;
                    fr.push(ContextFrame {
                        function: st.names[i].clone(),
                        location: LineLocation::new(line, disc),
                    });
                }
                v.push(fr.into_boxed_slice());
            }
            st.cs_names = v;
        }
        sec::LBR_PROFILE => {
            st.profiles_read = true;
            while !r.is_empty() {
                let head = r.num("function: head samples")?;
                let ctx = read_context(&mut r, st)?;
                if !profile.functions.contains_key(&ctx) {
                    profile.insertion_order.push(ctx.clone());
                }
                let fs = profile.entry(ctx);
                fs.head_samples = fs.head_samples.saturating_add(head);
                let mask = if st.fs { st.fs_mask } else { u32::MAX };
                read_body(&mut r, &st.names, fs, mask)?;
            }
        }
        sec::FUNC_METADATA => {
            st.probe_based = e.flags & flag::PROBE_BASED != 0;
            profile.flags.sets_probe_flag = true;
            st.has_attributes = e.flags & flag::HAS_ATTRIBUTE != 0;
            while !r.is_empty() {
                let ctx = read_context(&mut r, st)?;
                let fs = profile.functions.get_mut(&ctx);
                read_metadata(&mut r, st, fs)?;
            }
        }
        sec::SYMBOL_LIST => {
            let list = profile
                .symbol_list
                .get_or_insert_with(ProfileSymbolList::default);
            let mut rest = bytes;
            while !rest.is_empty() {
                let Some(n) = memchr::memchr(0, rest) else {
                    return Err(Error::malformed(
                        base + (bytes.len() - rest.len()) as u64,
                        "profile symbol list",
                        "the last symbol has no terminating NUL byte",
                    ));
                };
                list.names.insert(Name::from(&rest[..n]));
                rest = &rest[n + 1..];
            }
            return Ok(());
        }
        // LLVM skips the offset table when it reads every profile, and unknown sections.
        _ => return Ok(()),
    }
    if !r.is_empty() {
        return Err(Error::malformed(
            r.offset(),
            section_name(e.kind),
            format!(
                "{} bytes left over at the end of the section",
                r.c.remaining()
            ),
        ));
    }
    Ok(())
}

/// A top-level context: a context-name-table index when the profile is context-sensitive,
/// else a name-table index.
fn read_context(r: &mut SampleCursor<'_>, st: &State) -> Result<SampleContext> {
    if st.context_sensitive {
        let i = r.index(st.cs_names.len(), "function: context index")?;
        Ok(SampleContext::Context(st.cs_names[i].clone()))
    } else {
        let i = r.index(st.names.len(), "function: name index")?;
        Ok(SampleContext::Function(st.names[i].clone()))
    }
}

/// One function's metadata (`readFuncMetadata`), applied to `fs` when the profile exists.
fn read_metadata(
    r: &mut SampleCursor<'_>,
    st: &State,
    mut fs: Option<&mut FunctionSamples>,
) -> Result<()> {
    if r.is_empty() {
        return Ok(());
    }
    if st.probe_based {
        let checksum = r.num("metadata: CFG checksum")?;
        if let Some(f) = fs.as_deref_mut() {
            f.checksum = checksum;
        }
    }
    if st.has_attributes {
        let a = r.num_u32("metadata: attributes")?;
        if let Some(f) = fs.as_deref_mut() {
            f.attributes = ContextAttributes(a);
        }
    }
    if !st.context_sensitive {
        let n = r.num_u32("metadata: number of inlined callsites")?;
        for _ in 0..n {
            let line = r.num("metadata callsite: line offset")? as u32;
            let disc = r.num("metadata callsite: discriminator")? as u32;
            let i = r.index(st.names.len(), "metadata callsite: callee name index")?;
            // LLVM finds the callee at the location as written, unmasked: when a
            // flow-sensitive mask moved the callee read from the profile section, a new one
            // is made here, keyed by the callee's name but, as LLVM default-constructs it,
            // without a function (`FunctionId::Md5(0)`, written as an empty name: `N.D: :0`).
            let callee = fs.as_deref_mut().map(|f| {
                f.callsites
                    .entry(LineLocation::new(line, disc))
                    .or_default()
                    .entry(st.names[i].clone())
                    .or_insert_with(|| FunctionSamples::new(FunctionId::Md5(0)))
            });
            deep(|| read_metadata(r, st, callee))?;
        }
    }
    Ok(())
}
