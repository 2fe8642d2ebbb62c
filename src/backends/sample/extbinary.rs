//! Writer of LLVM's `SPF_Ext_Binary` sample profiles, byte for byte as `llvm-profdata merge
//! --sample --extbinary` with `--use-md5`, `--compress-all-sections`,
//! `--gen-partial-profile`, `--split-layout`, `-extbinary-write-vtable-type-prof` and a
//! profile symbol list (LLVM 19 and 22 write the same bytes; 19 has neither of the two
//! latter).
//!
//! The file is the header (magic, version, a section table of 7 entries, or 8 in the split
//! layout), then the sections in LLVM's writing order — summary, name table, context name
//! table, function profiles, symbol list, function offset table, function metadata — while
//! the table lists them in reading order (the offset table before the profiles). Each
//! section's flags are those set before it was written, as LLVM copies them then.
//!
//! Orders: names as LLVM's `FunctionId` sorts them (MD5 identities first, by value; names
//! bytewise); contexts as `SampleContext` sorts them; profiles by total samples, most first,
//! then by context; the offset table in profile order (contexts sorted when context-
//! sensitive); the metadata in the iteration order of LLVM's profile map, replayed from the
//! profile's insertion order (see [`crate::codec::unordered_order`]; when that cannot be
//! replayed — context-sensitive keys, or no recorded order — in profile order).
//!
//! Compressed sections are zlib level 9 of the section's bytes, framed as `ULEB128 size,
//! ULEB128 compressed size`; an empty section stays empty.

use crate::bytes::stack::deep;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use flate2::Compression;
use flate2::write::ZlibEncoder;
use std::io::Write as _;

use crate::bytes::leb128::write_uleb;
use crate::codec::sample_binary::{
    NameIndex, SampleMagic, VERSION, collect_body_names, flag, sec, write_body, write_plain_names,
    write_summary,
};
use crate::codec::unordered_order::sample_map_order;
use crate::error::{Error, ErrorKind, Result};
use crate::ir::sample::{FunctionId, FunctionSamples, SampleContext, SampleProfile};

/// Options of `llvm-profdata merge --sample --extbinary`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExtBinaryOptions {
    /// `--use-md5`: a fixed-length MD5 name table instead of names.
    pub use_md5: bool,
    /// `--compress-all-sections`.
    pub compress_all_sections: bool,
    /// `--gen-partial-profile`: flag the profile as partial.
    pub partial: bool,
    /// `--split-layout` (LLVM 22+): profiles with inlined callees and those without in two
    /// section pairs.
    pub split_layout: bool,
    /// `-extbinary-write-vtable-type-prof` (LLVM 22+): every body ends with its vtable type
    /// counts, their names join the name table, and the summary section says so.
    pub vtable_types: bool,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    kind: u64,
    flags: u64,
}

/// A section as written: its table slot and where it went.
struct Written {
    layout: usize,
    kind: u64,
    flags: u64,
    offset: u64,
    size: u64,
}

struct Writer<'p> {
    profile: &'p SampleProfile,
    opts: ExtBinaryOptions,
    layout: Vec<Entry>,
    out: Vec<u8>,
    written: Vec<Written>,
    names: NameIndex,
    cs_names: HashMap<&'p SampleContext, u64>,
    cs: bool,
}

/// A writer of `SPF_Ext_Binary` that may write profiles several times, as LLVM's writer
/// object does in a size-limited write: section flags an earlier write set stay set (a
/// name table that had a `.__uniq.` name keeps that flag even if the names written now have
/// none).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExtBinaryWriter {
    opts: ExtBinaryOptions,
    /// An earlier write's name table had a `.__uniq.` name.
    uniq_suffix: bool,
}

impl ExtBinaryWriter {
    /// A writer with `opts` that has written nothing yet.
    pub fn new(opts: ExtBinaryOptions) -> Self {
        ExtBinaryWriter {
            opts,
            uniq_suffix: false,
        }
    }

    /// Writes `profile`, with the flags earlier writes of this writer set.
    pub fn write(&mut self, profile: &SampleProfile) -> Result<Vec<u8>> {
        let (bytes, uniq_suffix) = write_once(profile, &self.opts, self.uniq_suffix)?;
        self.uniq_suffix = uniq_suffix;
        Ok(bytes)
    }
}

/// Writes `profile` as `SPF_Ext_Binary`.
pub fn write(profile: &SampleProfile, opts: &ExtBinaryOptions) -> Result<Vec<u8>> {
    ExtBinaryWriter::new(*opts).write(profile)
}

/// The section table's slots, in order, as LLVM's writer lays them out.
fn section_kinds(opts: &ExtBinaryOptions) -> &'static [u64] {
    if opts.split_layout {
        &[
            sec::SUMMARY,
            sec::NAME_TABLE,
            sec::FUNC_OFFSET_TABLE,
            sec::LBR_PROFILE,
            sec::FUNC_OFFSET_TABLE,
            sec::LBR_PROFILE,
            sec::SYMBOL_LIST,
            sec::FUNC_METADATA,
        ]
    } else {
        &[
            sec::SUMMARY,
            sec::NAME_TABLE,
            sec::CS_NAME_TABLE,
            sec::FUNC_OFFSET_TABLE,
            sec::LBR_PROFILE,
            sec::SYMBOL_LIST,
            sec::FUNC_METADATA,
        ]
    }
}

/// Writes `profile` once; `uniq_suffix`: an earlier write of the same writer set the name
/// table's `.__uniq.` flag. Returns the bytes and whether the flag is set now.
fn write_once(
    profile: &SampleProfile,
    opts: &ExtBinaryOptions,
    uniq_suffix: bool,
) -> Result<(Vec<u8>, bool)> {
    let cs = profile.flags.context_sensitive;
    if cs && opts.split_layout {
        return Err(Error::new(ErrorKind::CannotWrite(
            "--split-layout cannot hold a context-sensitive profile: it has no context name \
             table (llvm-profdata writes a file it cannot read back)"
                .into(),
        )));
    }
    let kinds = section_kinds(opts);
    let mut w = Writer {
        profile,
        opts: *opts,
        layout: kinds.iter().map(|&kind| Entry { kind, flags: 0 }).collect(),
        out: Vec::new(),
        written: Vec::new(),
        names: NameIndex::new(),
        cs_names: HashMap::new(),
        cs,
    };
    if opts.compress_all_sections {
        for e in &mut w.layout {
            e.flags |= flag::COMPRESS;
        }
    }
    if opts.use_md5 {
        w.add_flag(sec::NAME_TABLE, flag::MD5_NAME | flag::FIXED_LENGTH_MD5);
    }
    if opts.partial {
        w.add_flag(sec::SUMMARY, flag::PARTIAL);
    }
    if uniq_suffix {
        w.add_flag(sec::NAME_TABLE, flag::UNIQ_SUFFIX);
    }

    write_uleb(&mut w.out, SampleMagic::ExtBinary.value());
    write_uleb(&mut w.out, VERSION);
    w.out
        .extend_from_slice(&(w.layout.len() as u64).to_le_bytes());
    let table_at = w.out.len();
    w.out.resize(table_at + 32 * w.layout.len(), 0xff);

    w.write_sections();

    let uniq_suffix = w
        .layout
        .iter()
        .any(|e| e.kind == sec::NAME_TABLE && e.flags & flag::UNIQ_SUFFIX != 0);

    // The table in layout order.
    let mut table = vec![0u8; 32 * w.layout.len()];
    for s in &w.written {
        let at = 32 * s.layout;
        table[at..at + 8].copy_from_slice(&s.kind.to_le_bytes());
        table[at + 8..at + 16].copy_from_slice(&s.flags.to_le_bytes());
        table[at + 16..at + 24].copy_from_slice(&s.offset.to_le_bytes());
        table[at + 24..at + 32].copy_from_slice(&s.size.to_le_bytes());
    }
    w.out[table_at..table_at + table.len()].copy_from_slice(&table);
    Ok((w.out, uniq_suffix))
}

impl<'p> Writer<'p> {
    /// Writes every section, in LLVM's order (the offset tables after the profiles they
    /// index).
    fn write_sections(&mut self) {
        let sorted = self.profile.sorted();
        if self.opts.split_layout {
            let (nested, flat): (Vec<_>, Vec<_>) =
                sorted.iter().partition(|(_, fs)| !fs.callsites.is_empty());
            self.section(0, |w, buf| w.summary(buf));
            self.section(1, |w, buf| w.name_table(buf));
            let offsets = self.profiles_section(3, &nested);
            self.section(2, |w, buf| w.offset_table(buf, &offsets));
            self.layout[5].flags |= flag::FLAT;
            let offsets = self.profiles_section(5, &flat);
            self.layout[4].flags |= flag::FLAT;
            self.section(4, |w, buf| w.offset_table(buf, &offsets));
            self.section(6, |w, buf| w.symbol_list(buf));
            self.section(7, |w, buf| w.metadata(buf));
        } else {
            self.section(0, |w, buf| w.summary(buf));
            self.section(1, |w, buf| w.name_table(buf));
            self.section(2, |w, buf| w.cs_name_table(buf));
            let offsets = self.profiles_section(4, &sorted);
            self.section(5, |w, buf| w.symbol_list(buf));
            self.section(3, |w, buf| w.offset_table(buf, &offsets));
            self.section(6, |w, buf| w.metadata(buf));
        }
    }

    fn add_flag(&mut self, kind: u64, f: u64) {
        for e in &mut self.layout {
            if e.kind == kind {
                e.flags |= f;
            }
        }
    }

    /// Writes the section at `layout` slot with `body` (which may add flags), compressing it
    /// if its flags say so at the start, and records it.
    fn section(&mut self, layout: usize, body: impl FnOnce(&mut Self, &mut Vec<u8>)) {
        let kind = self.layout[layout].kind;
        self.pre_section_flags(kind);
        let compress = self.layout[layout].flags & flag::COMPRESS != 0;
        let start = self.out.len() as u64;
        let mut buf = Vec::new();
        body(self, &mut buf);
        if compress {
            if !buf.is_empty() {
                let packed = zlib9(&buf);
                write_uleb(&mut self.out, buf.len() as u64);
                write_uleb(&mut self.out, packed.len() as u64);
                self.out.extend_from_slice(&packed);
            }
        } else {
            self.out.extend_from_slice(&buf);
        }
        self.written.push(Written {
            layout,
            kind,
            flags: self.layout[layout].flags,
            offset: start,
            size: self.out.len() as u64 - start,
        });
    }

    /// The flags `writeOneSection` sets before a section of `kind` is started.
    fn pre_section_flags(&mut self, kind: u64) {
        let f = self.profile.flags;
        match kind {
            sec::FUNC_METADATA => {
                if f.probe_based {
                    self.add_flag(kind, flag::PROBE_BASED);
                }
                if self.cs || f.preinlined {
                    self.add_flag(kind, flag::HAS_ATTRIBUTE);
                }
            }
            sec::SUMMARY => {
                if self.cs {
                    self.add_flag(kind, flag::FULL_CONTEXT);
                }
                if f.preinlined {
                    self.add_flag(kind, flag::PRE_INLINED);
                }
                if f.fs_discriminator {
                    self.add_flag(kind, flag::FS_DISCRIMINATOR);
                }
                if self.opts.vtable_types {
                    self.add_flag(kind, flag::HAS_VTABLE_TYPE_PROF);
                }
            }
            _ => {}
        }
    }

    fn summary(&mut self, buf: &mut Vec<u8>) {
        // LLVM merges the contexts of the context-less summary in its map's order.
        let order = sample_map_order(self.profile);
        write_summary(
            buf,
            &crate::ir::sample::summary::compute_in_order(self.profile, order),
        );
    }

    fn name_table(&mut self, buf: &mut Vec<u8>) {
        let mut names: BTreeSet<FunctionId> = BTreeSet::new();
        let mut contexts: BTreeSet<&'p SampleContext> = BTreeSet::new();
        for (ctx, fs) in &self.profile.functions {
            match ctx {
                SampleContext::Context(frames) => {
                    for fr in frames.iter() {
                        names.insert(fr.function.clone());
                    }
                    contexts.insert(ctx);
                }
                SampleContext::Function(f) => {
                    names.insert(f.clone());
                }
            }
            collect_body_names(fs, &mut names, self.opts.vtable_types);
        }
        if !self.opts.use_md5
            && names.iter().any(|n| {
                n.as_bytes()
                    .is_some_and(|b| memchr::memmem::find(b, b".__uniq.").is_some())
            })
        {
            self.add_flag(sec::NAME_TABLE, flag::UNIQ_SUFFIX);
        }
        let names: Vec<FunctionId> = names.into_iter().collect();
        if self.opts.use_md5 {
            write_uleb(buf, names.len() as u64);
            for n in &names {
                buf.extend_from_slice(&n.hash_code().to_le_bytes());
            }
        } else {
            write_plain_names(buf, &names);
        }
        self.names = names
            .into_iter()
            .enumerate()
            .map(|(i, n)| (n, i as u64))
            .collect();
        self.cs_names = contexts
            .into_iter()
            .enumerate()
            .map(|(i, c)| (c, i as u64))
            .collect();
    }

    fn cs_name_table(&mut self, buf: &mut Vec<u8>) {
        let mut ordered: Vec<(&SampleContext, u64)> =
            self.cs_names.iter().map(|(c, i)| (*c, *i)).collect();
        ordered.sort_by_key(|&(_, i)| i);
        write_uleb(buf, ordered.len() as u64);
        for (ctx, _) in ordered {
            let frames = ctx.frames();
            write_uleb(buf, frames.len() as u64);
            for fr in frames {
                write_uleb(buf, self.names[&fr.function]);
                write_uleb(buf, u64::from(fr.location.line_offset));
                write_uleb(buf, u64::from(fr.location.discriminator));
            }
        }
    }

    fn context_index(&self, ctx: &SampleContext) -> u64 {
        match ctx {
            SampleContext::Context(_) => self.cs_names[ctx],
            SampleContext::Function(f) => self.names[f],
        }
    }

    /// Writes the profiles of `list` as a profile section; returns each one's offset from
    /// the section's start (in its uncompressed bytes).
    fn profiles_section(
        &mut self,
        layout: usize,
        list: &[(&'p SampleContext, &'p FunctionSamples)],
    ) -> Vec<(&'p SampleContext, u64)> {
        let mut offsets = Vec::with_capacity(list.len());
        self.section(layout, |w, buf| {
            for &(ctx, fs) in list {
                offsets.push((ctx, buf.len() as u64));
                write_uleb(buf, fs.head_samples);
                write_uleb(buf, w.context_index(ctx));
                write_body(buf, fs, &w.names, w.opts.vtable_types);
            }
        });
        offsets
    }

    fn offset_table(&mut self, buf: &mut Vec<u8>, offsets: &[(&'p SampleContext, u64)]) {
        write_uleb(buf, offsets.len() as u64);
        if self.cs {
            let ordered: BTreeMap<&SampleContext, u64> = offsets.iter().copied().collect();
            for (ctx, off) in ordered {
                write_uleb(buf, self.context_index(ctx));
                write_uleb(buf, off);
            }
            // LLVM flags every offset-table slot of the layout.
            self.add_flag(sec::FUNC_OFFSET_TABLE, flag::ORDERED);
        } else {
            for &(ctx, off) in offsets {
                write_uleb(buf, self.context_index(ctx));
                write_uleb(buf, off);
            }
        }
    }

    fn symbol_list(&mut self, buf: &mut Vec<u8>) {
        if let Some(list) = &self.profile.symbol_list {
            for n in &list.names {
                buf.extend_from_slice(n);
                buf.push(0);
            }
        }
    }

    fn metadata(&mut self, buf: &mut Vec<u8>) {
        let f = self.profile.flags;
        if !f.probe_based && !self.cs && !f.preinlined {
            return;
        }
        let order = sample_map_order(self.profile)
            .unwrap_or_else(|| self.profile.sorted().into_iter().map(|(c, _)| c).collect());
        for ctx in order {
            let fs = &self.profile.functions[ctx];
            write_uleb(buf, self.context_index(ctx));
            self.function_metadata(buf, fs);
        }
    }

    fn function_metadata(&self, buf: &mut Vec<u8>, fs: &FunctionSamples) {
        let f = self.profile.flags;
        if f.probe_based {
            write_uleb(buf, fs.checksum);
        }
        if self.cs || f.preinlined {
            write_uleb(buf, u64::from(fs.attributes.0));
        }
        if !self.cs {
            write_uleb(buf, fs.callsite_count() as u64);
            for (loc, site) in &fs.callsites {
                for samples in site.values() {
                    write_uleb(buf, u64::from(loc.line_offset));
                    write_uleb(buf, u64::from(loc.discriminator));
                    write_uleb(buf, self.names[&samples.name]);
                    deep(|| self.function_metadata(buf, samples));
                }
            }
        }
    }
}

/// zlib at level 9 (`BestSizeCompression`), as LLVM compresses sections.
fn zlib9(data: &[u8]) -> Vec<u8> {
    let mut z = ZlibEncoder::new(Vec::with_capacity(data.len() / 2 + 64), Compression::best());
    // Writing into a Vec cannot fail.
    let _ = z.write_all(data);
    z.finish().unwrap_or_default()
}
