//! GraalVM Native Image profiles (`.iprof`, JSON or gzip-compressed JSON): read straight
//! into context trees, in a profile of their own or added to a profile shared with other
//! readers.

use std::path::Path;

use super::InputFile;
use crate::error::Result;
use crate::frontends::iprof::{self as reader, Lowerer, SharedTarget, TableBuffers};
pub use crate::frontends::iprof::{CountScale, Lowered, ReadOptions as IprofReadOptions};

/// Where the context trees of one input go as it is read.
#[non_exhaustive]
pub enum TreeInto {
    /// Into a profile of the input's own ([`Lowered::profile`]).
    Own,
    /// Into `target`, which other readers (on other threads) add their inputs to at the
    /// same time, each count passed through `scale` first; [`Lowered::profile`] is then
    /// empty.
    Shared {
        /// The profile being merged.
        target: SharedTarget,
        /// How this input's counts are scaled; `None`: as read.
        scale: Option<CountScale>,
    },
}

/// Reads `.iprof` inputs one after the other (one per worker thread), reusing the memory of
/// the last input's method table for the next.
pub struct IprofReader {
    options: IprofReadOptions,
    buffers: TableBuffers,
}

impl IprofReader {
    /// A reader with `options`.
    pub fn new(options: IprofReadOptions) -> Self {
        IprofReader {
            options,
            buffers: TableBuffers::default(),
        }
    }

    /// Reads `file` into `into`. A plain file is parsed straight from its mapping, whose
    /// pages are released as the parse moves on, and a compressed one straight from the
    /// decompressor, so neither is resident as a whole. Errors carry the path.
    pub fn read(&mut self, file: &InputFile, into: TreeInto) -> Result<Lowered> {
        let buffers = std::mem::take(&mut self.buffers);
        let lowerer = match into {
            TreeInto::Own => Lowerer::new(self.options),
            TreeInto::Shared { target, scale } => Lowerer::into_shared(target, self.options, scale),
        };
        let mut read = reader::read_input_into(file, lowerer.with_buffers(buffers))?;
        self.buffers = std::mem::take(&mut read.buffers);
        Ok(read)
    }
}

/// Reads the `.iprof` file at `path` into a profile of its own (errors carry the path).
pub fn read_iprof_file(path: &Path, options: IprofReadOptions) -> Result<Lowered> {
    reader::read_file(path, options)
}
