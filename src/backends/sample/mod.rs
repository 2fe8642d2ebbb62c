//! Back-ends for LLVM sample profiles: [`text`], [`binary`] (`SPF_Binary`) and [`extbinary`]
//! (`SPF_Ext_Binary`).

pub mod binary;
pub mod extbinary;
pub mod text;

pub use text::write as write_text;
