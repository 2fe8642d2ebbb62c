//! Content-based format detection. The file name is never needed; it only breaks ties for
//! output formats.

use crate::frontends::profraw;

/// Magic of an indexed profile (`\xfflprofi\x81`), as a little-endian u64.
pub const INDEXED_MAGIC: u64 = 0x8169_666f_7270_6cff;

/// The formats this crate can recognise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormatKind {
    /// LLVM raw profile (`.profraw`).
    RawProfile,
    /// LLVM indexed profile (`.profdata`).
    IndexedProfile,
    /// LLVM text profile (`.proftext`): the first 8 bytes are printable or whitespace.
    TextProfile,
    /// GraalVM Native Image profile (`.iprof`): JSON whose first non-blank byte is `{`, or
    /// gzip data (which `native-image --pgo` accepts).
    Iprof,
    /// Empty input.
    Empty,
    /// Anything else.
    Unknown,
}

impl FormatKind {
    /// Detects the format of `data` from its first bytes.
    pub fn sniff(data: &[u8]) -> FormatKind {
        if data.is_empty() {
            return FormatKind::Empty;
        }
        if profraw::is_raw(data) {
            return FormatKind::RawProfile;
        }
        if data.len() >= 8 && data[..8] == INDEXED_MAGIC.to_le_bytes() {
            return FormatKind::IndexedProfile;
        }
        // Before the text rule: JSON text would pass it too.
        if crate::frontends::iprof::sniff(data) {
            return FormatKind::Iprof;
        }
        // LLVM's rule: the first min(8, size) bytes are printable or whitespace.
        let head = &data[..data.len().min(8)];
        if head
            .iter()
            .all(|&b| b.is_ascii_graphic() || b == b' ' || (b'\t'..=b'\r').contains(&b))
        {
            return FormatKind::TextProfile;
        }
        FormatKind::Unknown
    }

    /// A short name for messages.
    pub fn name(self) -> &'static str {
        match self {
            FormatKind::RawProfile => "raw profile (.profraw)",
            FormatKind::IndexedProfile => "indexed profile (.profdata)",
            FormatKind::TextProfile => "text profile (.proftext)",
            FormatKind::Iprof => "GraalVM Native Image profile (.iprof)",
            FormatKind::Empty => "empty file",
            FormatKind::Unknown => "unknown format",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_magics() {
        assert_eq!(FormatKind::sniff(&[]), FormatKind::Empty);
        assert_eq!(
            FormatKind::sniff(&[0x81, 0x72, 0x66, 0x6f, 0x72, 0x70, 0x6c, 0xff]),
            FormatKind::RawProfile
        );
        assert_eq!(
            FormatKind::sniff(&[0xff, 0x6c, 0x70, 0x72, 0x6f, 0x66, 0x52, 0x81]),
            FormatKind::RawProfile
        );
        assert_eq!(
            FormatKind::sniff(&[0xff, 0x6c, 0x70, 0x72, 0x6f, 0x66, 0x69, 0x81, 0]),
            FormatKind::IndexedProfile
        );
        assert_eq!(
            FormatKind::sniff(b"# IR level\n:ir\n"),
            FormatKind::TextProfile
        );
        assert_eq!(
            FormatKind::sniff(b"\x7fELF\x02\x01\x01\x00"),
            FormatKind::Unknown
        );
    }
}
