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
//! * with the summary's `SecFlagHasVTableTypeProf` (LLVM 22's
//!   `-extbinary-write-vtable-type-prof`) every body, nested ones too, ends with its vtable
//!   type counts; read for LLVM 22 and later, an error for earlier releases (LLVM 19 does
//!   not know the flag and misreads the file);
//! * every section must be used up exactly, as LLVM checks.
//!
//! The sections are read into the flat form by the one grammar of function profiles in
//! [`super::binary`]; [`read`] builds the tree from it. Errors name the file offset; inside a
//! compressed section they name the section's offset and the position in its uncompressed
//! data.

use super::binary::{FlatReader, len32};
use crate::bytes::limits::InflateBudget;
use crate::bytes::stack::deep;
use crate::codec::names_blob::inflate;
use crate::codec::sample_binary::{
    SampleCursor, SampleMagic, flag, read_header, read_summary, sec,
};
use crate::error::{Error, ErrorKind, Result};
use crate::ir::sample::flat::{FlatFrame, FlatKey, FlatMetadata, FlatName, FlatSite};
use crate::ir::sample::{
    ContextAttributes, FlatSampleProfile, LineLocation, ProfileSymbolList, SampleFormat,
    SampleProfile,
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

/// What sections tell the ones after them.
struct State {
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
    /// The summary section says every body ends with vtable type counts.
    vtables: bool,
    /// The release read for knows vtable type counts.
    vtables_known: bool,
    /// The discriminator bits kept when they are.
    fs_mask: u32,
    /// The current context table: `out.contexts[contexts_base..contexts_base +
    /// contexts_len]` (a later table replaces an earlier one for what follows).
    contexts_base: u32,
    contexts_len: u32,
    contexts_read: bool,
    /// The top-level profile whose metadata is being read, and the call sites from it
    /// down to the callee being read.
    key: FlatKey,
    path: Vec<FlatSite>,
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
    read_masked(data, u32::MAX, true)
}

/// Reads a whole `SPF_Ext_Binary` file; if its summary section says its discriminators are
/// flow-sensitive, the body records and inlined callsites of the profiles read after that
/// section keep only the bits of `fs_mask` (llvm-profdata's `--fs-discriminator-pass`), as
/// LLVM's reader masks them. The locations of the function-metadata section's callsites and
/// of calling contexts are not masked, as in LLVM. `vtables`: the release read for knows
/// vtable type counts (LLVM 22+); if not, a file that has them is an error, as it is for
/// LLVM 19 (which misreads it).
pub fn read_masked(data: &[u8], fs_mask: u32, vtables: bool) -> Result<SampleProfile> {
    let mut flat = FlatSampleProfile::new();
    read_flat(data, fs_mask, vtables, &mut flat)?;
    Ok(flat.to_profile())
}

/// Reads a whole `SPF_Ext_Binary` file into `out` (emptied first); `fs_mask` and `vtables`
/// as in [`read_masked`].
pub fn read_flat(
    data: &[u8],
    fs_mask: u32,
    vtables: bool,
    out: &mut FlatSampleProfile,
) -> Result<()> {
    out.clear();
    let table = read_section_table(data)?;
    out.format = Some(SampleFormat::ExtBinary);
    let mut st = State {
        context_sensitive: false,
        profiles_read: false,
        probe_based: false,
        has_attributes: false,
        fs: false,
        vtables: false,
        vtables_known: vtables,
        fs_mask,
        contexts_base: 0,
        contexts_len: 0,
        contexts_read: false,
        key: FlatKey::Function(0),
        path: Vec::new(),
    };
    let mut reader = FlatReader::new(out);
    let mut inflated = Vec::new();
    let mut budget = InflateBudget::new()?;
    for e in &table {
        if e.size == 0 {
            continue;
        }
        let (bytes, compressed) = section_bytes(data, e, &mut inflated, &mut budget)?;
        if !compressed {
            read_section(bytes, e.offset, e, &mut st, &mut reader)?;
            continue;
        }
        read_section(bytes, 0, e, &mut st, &mut reader).map_err(|err| {
            let inner = err.offset().unwrap_or(0);
            Error::at(
                e.offset,
                ErrorKind::Malformed {
                    what: section_name(e.kind),
                    detail: format!(
                        "compressed section, at offset {inner} of its uncompressed data: {}",
                        err.kind()
                    ),
                },
            )
        })?;
    }
    let flags = &mut reader.out.flags;
    flags.context_sensitive = st.context_sensitive;
    flags.probe_based = st.probe_based;
    Ok(())
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

/// Reads one section (`base`: the absolute offset of its first byte, 0 when inflated).
fn read_section(
    bytes: &[u8],
    base: u64,
    e: &SectionEntry,
    st: &mut State,
    reader: &mut FlatReader<'_>,
) -> Result<()> {
    let mut r = SampleCursor::new(bytes, base);
    match e.kind {
        sec::SUMMARY => summary_section(&mut r, e, st, reader.out)?,
        sec::NAME_TABLE => name_table_section(&mut r, e.flags, reader)?,
        sec::CS_NAME_TABLE => context_table_section(&mut r, st, reader)?,
        sec::LBR_PROFILE => {
            st.profiles_read = true;
            reader.mask = if st.fs { st.fs_mask } else { u32::MAX };
            reader.vtables = st.vtables;
            while !r.is_empty() {
                let head = r.num("function: head samples")?;
                let key = read_key(&mut r, st, reader)?;
                reader.read_top(&mut r, key, head)?;
            }
        }
        sec::FUNC_METADATA => {
            st.probe_based = e.flags & flag::PROBE_BASED != 0;
            reader.out.flags.sets_probe_flag = true;
            st.has_attributes = e.flags & flag::HAS_ATTRIBUTE != 0;
            while !r.is_empty() {
                let key = read_key(&mut r, st, reader)?;
                let target = match reader.top_of(key) {
                    Some(top) => Target::Node(reader.out.tops[top as usize].node),
                    None => Target::Missing(key),
                };
                st.path.clear();
                st.key = key;
                read_metadata(&mut r, st, reader, target)?;
            }
        }
        sec::SYMBOL_LIST => return symbol_list_section(bytes, base, reader.out),
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

/// The profile summary section, and the profile's flags in its section flags.
fn summary_section(
    r: &mut SampleCursor<'_>,
    e: &SectionEntry,
    st: &mut State,
    out: &mut FlatSampleProfile,
) -> Result<()> {
    out.stored_summary = Some(read_summary(r)?.to_summary());
    let f = &mut out.flags;
    f.partial |= e.flags & flag::PARTIAL != 0;
    if e.flags & flag::FULL_CONTEXT != 0 && !st.profiles_read {
        st.context_sensitive = true;
    }
    f.preinlined |= e.flags & flag::PRE_INLINED != 0;
    f.fs_discriminator |= e.flags & flag::FS_DISCRIMINATOR != 0;
    st.fs |= e.flags & flag::FS_DISCRIMINATOR != 0;
    if e.flags & flag::HAS_VTABLE_TYPE_PROF != 0 {
        if !st.vtables_known {
            return Err(Error::malformed(
                e.entry_at,
                "profile summary section",
                "the flags say every function profile ends with vtable type counts \
                 (SecFlagHasVTableTypeProf), which LLVM releases before 22 do not read: \
                 target LLVM 22 or later",
            ));
        }
        st.vtables = true;
    }
    Ok(())
}

/// The name table section: names, ULEB128 MD5s or fixed-length MD5s.
fn name_table_section(
    r: &mut SampleCursor<'_>,
    flags: u64,
    reader: &mut FlatReader<'_>,
) -> Result<()> {
    let md5 = flags & flag::MD5_NAME != 0;
    reader.out.flags.md5_names |= md5;
    if !md5 && flags & flag::FIXED_LENGTH_MD5 == 0 {
        return reader.read_plain_names(r);
    }
    reader.begin_names();
    let n = r.num("name table: number of MD5 names")?;
    let fixed = flags & flag::FIXED_LENGTH_MD5 != 0;
    if fixed && n > r.c.remaining() as u64 / 8 {
        return Err(r
            .c
            .truncated("fixed-length MD5 name table", n.saturating_mul(8)));
    }
    let room = n.min(r.c.remaining() as u64) as usize;
    crate::sys::alloc::reserve(&mut reader.out.names, room, "the name table")?;
    for _ in 0..n {
        let h = if fixed {
            r.u64_le("name table: MD5")?
        } else {
            r.num("name table: MD5")?
        };
        reader.out.names.push(FlatName::Md5(h));
    }
    reader.end_names(r.offset())
}

/// The context name table section: calling contexts as frames (name index, call site).
fn context_table_section(
    r: &mut SampleCursor<'_>,
    st: &mut State,
    reader: &mut FlatReader<'_>,
) -> Result<()> {
    if std::mem::replace(&mut st.contexts_read, true) {
        reader.out.canonical = false;
    }
    let out_contexts = reader.out.contexts.len();
    st.contexts_base = len32(out_contexts, "context name table", r.offset())?;
    let n = r.num("context name table: number of contexts")?;
    let room = n.min(r.c.remaining() as u64) as usize;
    crate::sys::alloc::reserve(&mut reader.out.contexts, room, "the context name table")?;
    for _ in 0..n {
        let at = r.offset();
        let frames = r.num_u32("context: number of frames")?;
        if frames == 0 {
            return Err(Error::malformed(at, "context", "a context without frames"));
        }
        let start = len32(reader.out.frames.len(), "context name table", at)?;
        for _ in 0..frames {
            let name = reader.name_index(r, "context frame: name index")?;
            let line = r.line_offset("context frame: line offset")?;
            let disc = r.num("context frame: discriminator")? as u32;
            reader.out.frames.push(FlatFrame {
                name,
                location: LineLocation::new(line, disc),
            });
        }
        let end = len32(reader.out.frames.len(), "context name table", r.offset())?;
        reader.out.contexts.push((start, end));
    }
    let total = len32(reader.out.contexts.len(), "context name table", r.offset())?;
    st.contexts_len = total - st.contexts_base;
    Ok(())
}

/// The profile symbol list section: NUL-terminated names.
fn symbol_list_section(bytes: &[u8], base: u64, out: &mut FlatSampleProfile) -> Result<()> {
    let list = out
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
    Ok(())
}

/// A top-level key: a context-table index when the profile is context-sensitive, else a
/// name-table index.
fn read_key(r: &mut SampleCursor<'_>, st: &State, reader: &FlatReader<'_>) -> Result<FlatKey> {
    if st.context_sensitive {
        let i = r.index(st.contexts_len as usize, "function: context index")?;
        Ok(FlatKey::Context(st.contexts_base + i as u32))
    } else {
        Ok(FlatKey::Function(
            reader.name_index(r, "function: name index")?,
        ))
    }
}

/// Where one function's metadata goes.
#[derive(Clone, Copy)]
enum Target {
    /// A node of the flat profile.
    Node(u32),
    /// A function the flat profile does not hold as a node (yet): the metadata is kept with
    /// its top-level key and `State::path`, and the tree applies it, creating the callee as
    /// LLVM's reader does, if that top-level profile exists.
    Missing(FlatKey),
}

/// One function's metadata (`readFuncMetadata`): its checksum and attributes, then (when
/// the profile is not context-sensitive) those of its inlined callees, recursively.
fn read_metadata(
    r: &mut SampleCursor<'_>,
    st: &mut State,
    reader: &mut FlatReader<'_>,
    target: Target,
) -> Result<()> {
    if r.is_empty() {
        return Ok(());
    }
    let checksum = match st.probe_based {
        true => Some(r.num("metadata: CFG checksum")?),
        false => None,
    };
    let attributes = match st.has_attributes {
        true => Some(r.num_u32("metadata: attributes")?),
        false => None,
    };
    apply_metadata(st, reader, target, checksum, attributes)?;
    if st.context_sensitive {
        return Ok(());
    }
    let n = r.num_u32("metadata: number of inlined callsites")?;
    for _ in 0..n {
        let line = r.num("metadata callsite: line offset")? as u32;
        let disc = r.num("metadata callsite: discriminator")? as u32;
        let name = reader.name_index(r, "metadata callsite: callee name index")?;
        // LLVM finds the callee at the location as written, unmasked: when a
        // flow-sensitive mask moved the callee read from the profile section, a new one
        // is made (see `Target::Missing`).
        let location = LineLocation::new(line, disc);
        let callee = match target {
            Target::Node(node) => reader
                .out
                .children(node)
                .find(|&c| {
                    let c = &reader.out.nodes[c as usize];
                    c.location == location && c.name == name
                })
                .map_or(Target::Missing(st.key), Target::Node),
            missing => missing,
        };
        st.path.push(FlatSite { location, name });
        deep(|| read_metadata(r, st, reader, callee))?;
        st.path.pop();
    }
    Ok(())
}

/// Sets the metadata of `target`: on its node, or as a [`FlatMetadata`] entry.
fn apply_metadata(
    st: &State,
    reader: &mut FlatReader<'_>,
    target: Target,
    checksum: Option<u64>,
    attributes: Option<u32>,
) -> Result<()> {
    let out = &mut *reader.out;
    match target {
        Target::Node(n) => {
            let node = &mut out.nodes[n as usize];
            if let Some(c) = checksum {
                node.checksum = c;
            }
            if let Some(a) = attributes {
                node.attributes = ContextAttributes(a);
            }
        }
        Target::Missing(key) => {
            out.canonical = false;
            let path_start = len32(out.metadata_path.len(), "function metadata", 0)?;
            out.metadata_path.extend_from_slice(&st.path);
            out.metadata.push(FlatMetadata {
                key,
                after_tops: len32(out.tops.len(), "function metadata", 0)?,
                path_start,
                path_end: len32(out.metadata_path.len(), "function metadata", 0)?,
                checksum,
                attributes,
            });
        }
    }
    Ok(())
}
