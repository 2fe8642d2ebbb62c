//! Back-ends for LLVM sample profiles: [`text`] writes the text format; the binary and
//! extbinary writers plug in here.

pub mod text;

pub use text::write as write_text;
