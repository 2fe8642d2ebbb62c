//! A little-endian output buffer with back-patching, in memory or streamed to a file.

use std::io::{self, Seek, SeekFrom, Write};

/// A file-like sink a [`ByteWriter`] can stream to: it must be able to seek back to patch.
pub trait SeekWrite: Write + Seek {}
impl<T: Write + Seek> SeekWrite for T {}

/// Bytes kept in memory before a streaming writer hands them to its sink.
const SPILL_AT: usize = 1 << 20;

/// An output buffer for little-endian formats. Offsets reserved with [`ByteWriter::reserve_u64`]
/// are filled in later with [`ByteWriter::patch_u64`], the way LLVM's writer back-patches its
/// header.
///
/// A writer made with [`ByteWriter::streaming`] keeps at most about a megabyte in memory: it
/// hands full chunks to its sink, remembers patches to bytes already handed over, and applies
/// them (seeking back) in [`ByteWriter::finish`]. Offsets are always absolute.
#[derive(Default)]
pub struct ByteWriter<'s> {
    buf: Vec<u8>,
    /// Bytes already given to the sink; `buf` holds the ones after them.
    flushed: u64,
    sink: Option<&'s mut dyn SeekWrite>,
    /// Patches of flushed bytes: (absolute offset, bytes).
    late: Vec<(u64, Vec<u8>)>,
    /// The first error of the sink; reported by [`ByteWriter::finish`].
    error: Option<io::Error>,
}

impl std::fmt::Debug for ByteWriter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ByteWriter")
            .field("len", &self.len())
            .field("streaming", &self.sink.is_some())
            .finish()
    }
}

/// A reserved 8-byte slot, to be patched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot(u64);

impl<'s> ByteWriter<'s> {
    /// An empty in-memory writer.
    pub fn new() -> Self {
        ByteWriter::default()
    }

    /// An empty in-memory writer with room for `n` bytes.
    pub fn with_capacity(n: usize) -> Self {
        ByteWriter {
            buf: Vec::with_capacity(n),
            ..Default::default()
        }
    }

    /// A writer that streams to `sink` (written from its current position, which must be
    /// its start).
    pub fn streaming(sink: &'s mut dyn SeekWrite) -> Self {
        ByteWriter {
            buf: Vec::with_capacity(SPILL_AT + 4096),
            sink: Some(sink),
            ..Default::default()
        }
    }

    /// Bytes written so far (= the absolute offset of the next byte).
    pub fn len(&self) -> u64 {
        self.flushed + self.buf.len() as u64
    }

    /// True before anything is written.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn spill(&mut self) {
        if self.buf.len() < SPILL_AT {
            return;
        }
        if let Some(sink) = self.sink.as_mut() {
            if self.error.is_none()
                && let Err(e) = sink.write_all(&self.buf)
            {
                self.error = Some(e);
            }
            self.flushed += self.buf.len() as u64;
            self.buf.clear();
        }
    }

    /// Appends one byte.
    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
        self.spill();
    }
    /// Appends a little-endian u16.
    pub fn u16(&mut self, v: u16) {
        self.bytes(&v.to_le_bytes());
    }
    /// Appends a little-endian u32.
    pub fn u32(&mut self, v: u32) {
        self.bytes(&v.to_le_bytes());
    }
    /// Appends a little-endian u64.
    pub fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }
    /// Appends raw bytes.
    pub fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
        self.spill();
    }
    /// Appends `n` zero bytes.
    pub fn zeros(&mut self, n: usize) {
        self.buf.resize(self.buf.len() + n, 0);
        self.spill();
    }
    /// Pads with zeros to a multiple of 8 (absolute offset).
    pub fn align8(&mut self) {
        self.zeros(super::pad8(self.len()) as usize);
    }

    /// Reserves an 8-byte slot filled with zeros.
    pub fn reserve_u64(&mut self) -> Slot {
        let s = Slot(self.len());
        self.u64(0);
        s
    }

    /// Writes `v` into a reserved slot.
    pub fn patch_u64(&mut self, slot: Slot, v: u64) {
        self.patch_bytes(slot.0, &v.to_le_bytes());
    }

    /// Overwrites bytes at an absolute offset that was already written.
    ///
    /// # Panics
    /// If the range was not written yet (a bug in the caller, never input-dependent).
    pub fn patch_bytes(&mut self, at: u64, b: &[u8]) {
        if at >= self.flushed {
            let i = (at - self.flushed) as usize;
            self.buf[i..i + b.len()].copy_from_slice(b);
        } else {
            assert!(
                at + b.len() as u64 <= self.flushed,
                "patch across the flush point"
            );
            self.late.push((at, b.to_vec()));
        }
    }

    /// The bytes written (in-memory writers).
    pub fn as_slice(&self) -> &[u8] {
        &self.buf
    }

    /// Consumes an in-memory writer.
    pub fn into_inner(self) -> Vec<u8> {
        self.buf
    }

    /// Ends a streaming writer: hands the rest to the sink, applies the patches of bytes
    /// already handed over, and leaves the sink positioned at the end. Returns the sink's
    /// first error.
    pub fn finish(mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let Some(sink) = self.sink.take() else {
            return Ok(());
        };
        sink.write_all(&self.buf)?;
        let end = self.flushed + self.buf.len() as u64;
        for (at, b) in &self.late {
            sink.seek(SeekFrom::Start(*at))?;
            sink.write_all(b)?;
        }
        sink.seek(SeekFrom::Start(end))?;
        sink.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streaming_gives_the_same_bytes() {
        let build = |w: &mut ByteWriter<'_>| {
            let a = w.reserve_u64();
            for i in 0..400_000u32 {
                w.u32(i);
            }
            let b = w.reserve_u64();
            w.zeros(3);
            w.align8();
            w.patch_u64(a, 7);
            w.patch_u64(b, w.len());
        };
        let mut m = ByteWriter::new();
        build(&mut m);
        let mut file = std::io::Cursor::new(Vec::new());
        let mut s = ByteWriter::streaming(&mut file);
        build(&mut s);
        s.finish().unwrap();
        assert_eq!(file.into_inner(), m.into_inner());
    }

    #[test]
    fn patching() {
        let mut w = ByteWriter::new();
        w.u8(1);
        w.align8();
        let s = w.reserve_u64();
        w.u16(0xbeef);
        w.patch_u64(s, 0x1122334455667788);
        assert_eq!(
            w.as_slice(),
            &[
                1, 0, 0, 0, 0, 0, 0, 0, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0xef, 0xbe
            ]
        );
    }
}
