//! Locations inside a function: line offset and discriminator (LLVM's `LineLocation`).

use std::fmt;

/// Where a sample was taken, relative to its function.
///
/// * `line_offset`: source line minus the line of the function's header (AutoFDO), or the
///   pseudo-probe index (probe-based profiles). The text format writes it as `N`.
/// * `discriminator`: tells apart code on one line (basic blocks, copies made by
///   unrolling or flow-sensitive discriminators of `-enable-fs-discriminator` builds, which
///   use high bits); 0 when there is none. The text format writes `N.D` when it is
///   non-zero.
///
/// Order: by line offset, then discriminator — the order LLVM writes body samples and call
/// sites in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct LineLocation {
    /// Lines after the function's first line, or the probe index.
    pub line_offset: u32,
    /// Discriminator within the line (0: none).
    pub discriminator: u32,
}

impl LineLocation {
    /// A location.
    pub const fn new(line_offset: u32, discriminator: u32) -> Self {
        LineLocation {
            line_offset,
            discriminator,
        }
    }

    /// Appends `N` or `N.D` (the text format's spelling, no trailing colon) to `out`.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(self.line_offset.to_string().as_bytes());
        if self.discriminator != 0 {
            out.push(b'.');
            out.extend_from_slice(self.discriminator.to_string().as_bytes());
        }
    }
}

impl fmt::Display for LineLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.discriminator != 0 {
            write!(f, "{}.{}", self.line_offset, self.discriminator)
        } else {
            write!(f, "{}", self.line_offset)
        }
    }
}
