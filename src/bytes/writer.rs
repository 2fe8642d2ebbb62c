//! A little-endian output buffer with back-patching.

/// An output buffer for little-endian formats. Offsets reserved with [`ByteWriter::reserve_u64`]
/// are filled in later with [`ByteWriter::patch_u64`], the way LLVM's writer back-patches its
/// header.
#[derive(Debug, Default, Clone)]
pub struct ByteWriter {
    buf: Vec<u8>,
}

/// A reserved 8-byte slot, to be patched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot(usize);

impl ByteWriter {
    /// An empty writer.
    pub fn new() -> Self {
        ByteWriter { buf: Vec::new() }
    }

    /// An empty writer with room for `n` bytes.
    pub fn with_capacity(n: usize) -> Self {
        ByteWriter {
            buf: Vec::with_capacity(n),
        }
    }

    /// Bytes written so far (= the absolute offset of the next byte).
    pub fn len(&self) -> u64 {
        self.buf.len() as u64
    }

    /// True before anything is written.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Appends one byte.
    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }
    /// Appends a little-endian u16.
    pub fn u16(&mut self, v: u16) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    /// Appends a little-endian u32.
    pub fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    /// Appends a little-endian u64.
    pub fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    /// Appends raw bytes.
    pub fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }
    /// Appends `n` zero bytes.
    pub fn zeros(&mut self, n: usize) {
        self.buf.resize(self.buf.len() + n, 0);
    }
    /// Pads with zeros to a multiple of 8 (absolute offset).
    pub fn align8(&mut self) {
        self.zeros(super::pad8(self.len()) as usize);
    }

    /// Reserves an 8-byte slot filled with zeros.
    pub fn reserve_u64(&mut self) -> Slot {
        let s = Slot(self.buf.len());
        self.u64(0);
        s
    }

    /// Writes `v` into a reserved slot.
    pub fn patch_u64(&mut self, slot: Slot, v: u64) {
        self.buf[slot.0..slot.0 + 8].copy_from_slice(&v.to_le_bytes());
    }

    /// Overwrites bytes at an absolute offset that was already written.
    ///
    /// # Panics
    /// If the range was not written yet (a bug in the caller, never input-dependent).
    pub fn patch_bytes(&mut self, at: u64, b: &[u8]) {
        let at = at as usize;
        self.buf[at..at + b.len()].copy_from_slice(b);
    }

    /// The bytes written.
    pub fn as_slice(&self) -> &[u8] {
        &self.buf
    }

    /// Mutable access to the underlying vector (for encoders that append directly).
    pub fn vec_mut(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }

    /// Consumes the writer.
    pub fn into_inner(self) -> Vec<u8> {
        self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
