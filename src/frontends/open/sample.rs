//! LLVM sample profiles (text, binary, extbinary, GCC): one reader for every encoding, set
//! up for the LLVM release whose readers it follows.

use crate::codec::llvm_hash::ContextHash;
use crate::codec::sample_binary::SectionEntry;
use crate::error::Result;
use crate::frontends::sample::{self as readers, ReadOptions, SampleEncoding, TextDialect};
use crate::ir::sample::{FlatSampleProfile, FsDiscriminatorPass, SampleProfile};

/// Reads sample profiles of any encoding as one LLVM release reads them (the text dialect,
/// how contexts are keyed, the flow-sensitive discriminator bits kept).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SampleReader {
    options: ReadOptions,
}

/// A sample profile read for a merge: in the flat buffer it was read into, or in tree form
/// where the flat form cannot hold it (or is not wanted).
#[non_exhaustive]
pub enum SampleRead {
    /// In the flat buffer given to [`SampleReader::read_for_merge`].
    Flat,
    /// In tree form.
    Tree(Box<SampleProfile>),
}

/// What `show --sample --show-sec-info-only` can show of a file.
#[non_exhaustive]
pub enum SectionInfo {
    /// The section table of an extbinary profile.
    Table(Vec<SectionEntry>),
    /// A sample profile of another encoding: it has no section table.
    NotExtBinary,
}

impl SampleReader {
    /// The reader of LLVM release `target_llvm`, keeping the discriminator bits of
    /// `fs_pass` in flow-sensitive profiles; `profile_is_fs` says text and binary inputs are
    /// flow-sensitive (extbinary inputs say so themselves).
    pub fn new(target_llvm: u32, fs_pass: FsDiscriminatorPass, profile_is_fs: bool) -> Self {
        SampleReader {
            options: ReadOptions {
                text: TextDialect::for_llvm(target_llvm),
                context_hash: ContextHash::for_llvm(target_llvm),
                fs_pass,
                profile_is_fs,
            },
        }
    }

    /// How the release keys a calling context (set on every profile read).
    pub fn context_hash(&self) -> ContextHash {
        self.options.context_hash
    }

    /// The flow-sensitive discriminator bits kept.
    pub fn fs_pass(&self) -> FsDiscriminatorPass {
        self.options.fs_pass
    }

    /// Whether text and binary inputs are taken to be flow-sensitive.
    pub fn profile_is_fs(&self) -> bool {
        self.options.profile_is_fs
    }

    /// The profile in `data`, in tree form, its encoding detected.
    pub fn read(&self, data: &[u8]) -> Result<SampleProfile> {
        readers::read(data, &self.options)
    }

    /// The tree form of what [`SampleReader::read_for_merge`] left in `flat`: what
    /// [`SampleReader::read`] gives for the same bytes.
    pub fn tree(&self, flat: &FlatSampleProfile) -> SampleProfile {
        readers::tree(flat, &self.options)
    }

    /// Reads `data` for a merge. Binary encodings are read into `flat` by their one reader,
    /// and left there if `flat_form` and it is canonical, else given in the tree form built
    /// from it; text, if `flat_form`, by its reader's flat way (which turns into the tree
    /// reader where the flat form cannot hold the input); anything else in tree form. Every
    /// way gives the same profile and the same errors.
    pub fn read_for_merge(
        &self,
        data: &[u8],
        flat_form: bool,
        flat: &mut FlatSampleProfile,
    ) -> Result<SampleRead> {
        let options = &self.options;
        if readers::read_binary_flat(data, options, flat)? {
            return Ok(if flat_form && flat.canonical {
                SampleRead::Flat
            } else {
                SampleRead::Tree(Box::new(readers::tree(flat, options)))
            });
        }
        if !flat_form || SampleEncoding::sniff(data) != SampleEncoding::Text {
            return Ok(SampleRead::Tree(Box::new(self.read(data)?)));
        }
        Ok(
            match readers::text::read_for_merge(data, options.text, flat)? {
                None => SampleRead::Flat,
                Some(mut profile) => {
                    profile.context_hash = options.context_hash;
                    SampleRead::Tree(Box::new(profile))
                }
            },
        )
    }

    /// The section table of an extbinary profile in `data`; for a file that is no sample
    /// profile LLVM reads, the reader's error.
    pub fn section_info(&self, data: &[u8]) -> Result<SectionInfo> {
        match SampleEncoding::sniff(data) {
            SampleEncoding::ExtBinary => {
                readers::extbinary::read_section_table(data).map(SectionInfo::Table)
            }
            SampleEncoding::Unknown | SampleEncoding::CompactBinary => {
                // Not a sample profile LLVM reads: the reader says why.
                self.read(data).map(|_| SectionInfo::NotExtBinary)
            }
            _ => Ok(SectionInfo::NotExtBinary),
        }
    }
}
