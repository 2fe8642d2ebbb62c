//! Back-ends for LLVM sample profiles: [`text`] writes the text format, [`binary`]
//! (`SPF_Binary`) and [`extbinary`] (`SPF_Ext_Binary`) the binary encodings, [`show`] the
//! `show --sample` report, [`overlap`] the `overlap --sample` report.

pub mod binary;
pub mod extbinary;
pub mod overlap;
pub mod show;
pub mod text;

pub use text::write as write_text;
