//! Front-ends for LLVM sample profiles (AutoFDO, CSSPGO): format detection and dispatch.
//!
//! [`SampleEncoding::sniff`] tells the encodings apart from the first bytes (the magic
//! numbers of LLVM's binary encodings, GCC's `adcg*704`, else LLVM's text rule) and [`read`]
//! hands the bytes to the reader of that encoding: [`text`], [`binary`] (`SPF_Binary`),
//! [`extbinary`] (`SPF_Ext_Binary`) and [`gcov`] (GCC's AutoFDO `.gcov`). The binary
//! encodings have one reader each, into the flat form ([`read_binary_flat`]), from which
//! merges fold and the tree form is built.

pub mod binary;
pub mod extbinary;
pub mod gcov;
pub mod text;

use crate::codec::sample_binary::SampleMagic;
use crate::error::{Error, ErrorKind, Result};
use crate::ir::sample::{FlatSampleProfile, FsDiscriminatorPass, SampleProfile};

pub use text::TextDialect;

/// The encodings of sample profiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SampleEncoding {
    /// LLVM's text format.
    Text,
    /// LLVM's binary format (`SPF_Binary`).
    Binary,
    /// LLVM's extensible binary format (`SPF_Ext_Binary`).
    ExtBinary,
    /// LLVM's compact binary format, removed in LLVM 17.
    CompactBinary,
    /// GCC's AutoFDO format (`.gcov`, magic and version `adcg*704`).
    Gcc,
    /// Not a sample profile LLVM reads.
    Unknown,
}

impl SampleEncoding {
    /// The encoding of `data`, from its first bytes.
    pub fn sniff(data: &[u8]) -> SampleEncoding {
        match SampleMagic::sniff(data) {
            Some(SampleMagic::Binary) => return SampleEncoding::Binary,
            Some(SampleMagic::ExtBinary) => return SampleEncoding::ExtBinary,
            Some(SampleMagic::CompactBinary) => return SampleEncoding::CompactBinary,
            None => {}
        }
        // As LLVM: the magic and version, then a NUL byte or the end (other versions of
        // GCC's header fall to the text rule, which refuses them).
        if gcov::sniff(data) {
            return SampleEncoding::Gcc;
        }
        if text::sniff(data) {
            return SampleEncoding::Text;
        }
        SampleEncoding::Unknown
    }

    /// The encoding's name as llvm-profdata spells it.
    pub fn name(self) -> &'static str {
        match self {
            SampleEncoding::Text => "text",
            SampleEncoding::Binary => "binary",
            SampleEncoding::ExtBinary => "extbinary",
            SampleEncoding::CompactBinary => "compact binary",
            SampleEncoding::Gcc => "gcc",
            SampleEncoding::Unknown => "unknown",
        }
    }
}

/// How to read inputs whose meaning depends on the LLVM release being emulated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReadOptions {
    /// The text dialect.
    pub text: TextDialect,
    /// How the release keys a calling context in its profile map (set on the profile read).
    pub context_hash: crate::codec::llvm_hash::ContextHash,
    /// The flow-sensitive discriminator bits kept in profiles whose discriminators are
    /// flow-sensitive (llvm-profdata's `--fs-discriminator-pass`; default: all of them).
    pub fs_pass: FsDiscriminatorPass,
    /// Text and binary inputs have flow-sensitive discriminators (llvm-profdata's hidden
    /// `--profile-isfs`; extbinary inputs say so in their summary section instead).
    pub profile_is_fs: bool,
}

impl ReadOptions {
    /// The mask readers of text and binary inputs apply, if those are flow-sensitive.
    fn text_fs(&self) -> Option<u32> {
        self.profile_is_fs.then(|| self.fs_pass.mask())
    }
}

/// Reads a binary or extbinary sample profile into `out` (emptied first), as [`read`]
/// reads it, with its errors. `Ok(false)` if `data` is of another encoding.
pub fn read_binary_flat(
    data: &[u8],
    options: &ReadOptions,
    out: &mut FlatSampleProfile,
) -> Result<bool> {
    match SampleEncoding::sniff(data) {
        SampleEncoding::Binary => binary::read_flat(data, options.text_fs(), out)?,
        SampleEncoding::ExtBinary => {
            extbinary::read_flat(data, options.fs_pass.mask(), options.text.vtables, out)?
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// The tree form of a profile [`read_binary_flat`] read with `options`: what [`read`] gives.
pub fn tree(flat: &FlatSampleProfile, options: &ReadOptions) -> SampleProfile {
    let mut profile = flat.to_profile();
    profile.context_hash = options.context_hash;
    profile
}

/// Reads a sample profile of any supported encoding.
pub fn read(data: &[u8], options: &ReadOptions) -> Result<SampleProfile> {
    let mut profile = read_encoding(data, options)?;
    profile.context_hash = options.context_hash;
    Ok(profile)
}

fn read_encoding(data: &[u8], options: &ReadOptions) -> Result<SampleProfile> {
    match SampleEncoding::sniff(data) {
        SampleEncoding::Text => text::read_fs(data, options.text, options.text_fs()),
        SampleEncoding::Binary => binary::read_fs(data, options.text_fs()),
        SampleEncoding::ExtBinary => {
            extbinary::read_masked(data, options.fs_pass.mask(), options.text.vtables)
        }
        // LLVM's GCC reader ignores `--profile-isfs` (it asserts it is off).
        SampleEncoding::Gcc => gcov::read(data),
        SampleEncoding::CompactBinary => Err(Error::at(
            0,
            ErrorKind::Malformed {
                what: "sample profile",
                detail: "the compact binary sample encoding was removed in LLVM 17 and is not read"
                    .into(),
            },
        )),
        SampleEncoding::Unknown => {
            if data.is_empty() {
                return Err(Error::at(0, ErrorKind::Empty));
            }
            if data.starts_with(b"adcg") {
                return Err(Error::malformed(
                    4,
                    "GCC AutoFDO header",
                    format!(
                        "version {:?} is not read: llvm-profdata reads only \"*704\" followed by \
                         a NUL byte (what AutoFDO's create_gcov writes)",
                        String::from_utf8_lossy(data.get(4..8).unwrap_or(&data[4..]))
                    ),
                ));
            }
            Err(Error::at(
                0,
                ErrorKind::Malformed {
                    what: "sample profile",
                    detail: "unrecognised sample profile encoding: expected LLVM's binary or \
                             extbinary magic, GCC's `adcg*704`, or a text profile whose first line \
                             is a function header 'mangled_name:NUM:NUM'"
                        .into(),
                },
            ))
        }
    }
}
