//! Back-ends for LLVM sample profiles: [`text`] writes the text format, [`show`] the
//! `show --sample` report; the binary and extbinary writers plug in here.

pub mod show;
pub mod text;

pub use text::write as write_text;
