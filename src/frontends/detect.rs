//! Content-based format detection. The file name is never needed; it only breaks ties for
//! output formats.

use crate::frontends::profraw;

use crate::codec::magic::INDEXED_MAGIC;
use crate::codec::sample_binary::SampleMagic;
use crate::error::{Error, ErrorKind, Result};

/// The formats this crate can recognise.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormatKind {
    /// LLVM raw profile (`.profraw`).
    RawProfile,
    /// LLVM indexed profile (`.profdata`).
    IndexedProfile,
    /// LLVM text profile (`.proftext`): text that starts with a `:` header, or whose first
    /// record has a name line and a hash line (see [`crate::frontends::proftext::sniff`]).
    TextProfile,
    /// LLVM binary sample profile (`SPF_Binary`, ULEB128 magic `SPROF42\xff`).
    SampleBinary,
    /// LLVM extbinary sample profile (`SPF_Ext_Binary`, ULEB128 magic `SPROF42\x04`).
    SampleExtBinary,
    /// GCC AutoFDO sample profile (`.gcov`/`.afdo`, magic and version `adcg*704`).
    SampleGcc,
    /// GraalVM Native Image profile (`.iprof`): JSON whose first non-blank byte is `{`, or
    /// gzip data holding one (which `native-image --pgo` accepts) or that cannot be
    /// inflated. Gzip data holding another format is that format
    /// ([`crate::frontends::gzip`]).
    Iprof,
    /// A jitdump (`jit-PID.dump`): JIT code loads, binary, magic `DTiJ`/`JiTD`.
    JitDump,
    /// A .NET ReadyToRun map (`*.ni.r2rmap`): text whose first line is `FFFFFFFF 00 …`.
    R2rMap,
    /// A perf symbol map (`perf-PID.map`): text lines `START SIZE name`.
    PerfMap,
    /// `perf script` text output (sampled stacks).
    PerfScript,
    /// Empty input.
    Empty,
    /// Anything else.
    Unknown,
}

/// GCC AutoFDO's magic. Without the `sample` feature the magic alone is checked, so that
/// such a file is still named and refused as a sample profile.
fn sniff_gcov(data: &[u8]) -> bool {
    #[cfg(feature = "sample")]
    return crate::frontends::sample::gcov::sniff(data);
    #[cfg(not(feature = "sample"))]
    return data.starts_with(b"adcg*704");
}

/// A GraalVM profile: without the `iprof` feature, the reader's rule (gzip data, or JSON
/// text opening an object) restated, so that such a file is named and refused as one.
fn sniff_iprof(data: &[u8]) -> bool {
    #[cfg(feature = "iprof")]
    return crate::frontends::iprof::sniff(data);
    #[cfg(not(feature = "iprof"))]
    {
        let data = data.strip_prefix(b"\xef\xbb\xbf").unwrap_or(data);
        data.starts_with(&[0x1f, 0x8b])
            || data
                .iter()
                .find(|b| !b.is_ascii_whitespace())
                .is_some_and(|&b| b == b'{')
    }
}

/// The inputs of JIT symbolisation. Text formats: before the proftext rule, which they pass.
/// A proftext starts with a comment, a `:` flag or a function name alone on its line, never
/// with `HEX HEX name` or a perf script sample header. Without the `jit` feature only the
/// formats with a magic (jitdumps, r2rmaps) are recognised: perf maps and `perf script`
/// text have none, and their rules are the readers'.
fn sniff_jit(data: &[u8]) -> Option<FormatKind> {
    #[cfg(feature = "jit")]
    {
        use crate::frontends::{jitdump, perf_script, perfmap};
        if jitdump::sniff(data) {
            return Some(FormatKind::JitDump);
        }
        if perfmap::sniff_r2rmap(data) {
            return Some(FormatKind::R2rMap);
        }
        if perfmap::sniff_perf_map(data) {
            return Some(FormatKind::PerfMap);
        }
        if perf_script::sniff(data) {
            return Some(FormatKind::PerfScript);
        }
        None
    }
    #[cfg(not(feature = "jit"))]
    {
        if data.starts_with(b"DTiJ") || data.starts_with(b"JiTD") {
            return Some(FormatKind::JitDump);
        }
        if data.starts_with(b"FFFFFFFF 00 ") || data.starts_with(b"ffffffff 00 ") {
            return Some(FormatKind::R2rMap);
        }
        None
    }
}

/// BOLT's fdata (`boltedcollection`, `no_lbr`, or a record line starting with a location
/// kind 0–5) or YAML (`---`) profiles, as their readers' sniffers take them.
#[cfg(not(feature = "bolt"))]
fn looks_like_bolt(head: &[u8]) -> bool {
    head.starts_with(b"boltedcollection\n")
        || head.starts_with(b"no_lbr")
        || matches!(head, [b'0'..=b'5', b' ', ..])
        || head.starts_with(b"---\n")
        || head.starts_with(b"---\r\n")
}

impl FormatKind {
    /// The format of a file from its first bytes, or `None` if it cannot be read or is not a
    /// regular file (sniffing a pipe would consume what the real reader needs).
    pub fn sniff_path(p: &std::path::Path) -> Option<FormatKind> {
        if !std::fs::metadata(p).ok()?.is_file() {
            return None;
        }
        // Without waiting, should a FIFO have taken the file's place since.
        let mut options = std::fs::OpenOptions::new();
        options.read(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
        let mut f = options.open(p).ok()?;
        if !f.metadata().ok()?.is_file() {
            return None;
        }
        let mut head = [0u8; 512];
        let mut n = 0;
        while n < head.len() {
            match std::io::Read::read(&mut f, head.get_mut(n..)?) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(_) => return None,
            }
        }
        Some(Self::sniff(head.get(..n)?))
    }

    /// Detects the format of `data` from its first bytes.
    pub fn sniff(data: &[u8]) -> FormatKind {
        if data.is_empty() {
            return FormatKind::Empty;
        }
        if crate::frontends::gzip::is_gzip(data) {
            return crate::frontends::gzip::kind_of(data);
        }
        if profraw::is_raw(data) {
            return FormatKind::RawProfile;
        }
        if data.len() >= 8 && data[..8] == INDEXED_MAGIC.to_le_bytes() {
            return FormatKind::IndexedProfile;
        }
        // A ULEB128 magic starting with 0xff or 0x84: neither is text nor any magic above.
        // The removed compact encoding has no kind of its own: like any other bytes, it goes
        // on to the rules below (the sample readers name it).
        match SampleMagic::sniff(data) {
            Some(SampleMagic::Binary) => return FormatKind::SampleBinary,
            Some(SampleMagic::ExtBinary) => return FormatKind::SampleExtBinary,
            Some(SampleMagic::CompactBinary) | None => {}
        }
        if sniff_gcov(data) {
            return FormatKind::SampleGcc;
        }
        // Before the text rule: JSON text would pass it too.
        if sniff_iprof(data) {
            return FormatKind::Iprof;
        }
        if let Some(kind) = sniff_jit(data) {
            return kind;
        }
        // LLVM's rule (the first bytes are text), and a first record that parses as one.
        if crate::frontends::proftext::sniff(data) {
            return FormatKind::TextProfile;
        }
        FormatKind::Unknown
    }

    /// Refuses an input of this format when this build leaves its family out (its Cargo
    /// feature was off), with an error naming the feature; `Ok` for every other input, which
    /// goes on to its reader. `head` is the input's first bytes (BOLT profiles have no magic
    /// of their own: without the `bolt` feature, bytes no other format claims that start as
    /// BOLT's do are taken for one).
    pub(crate) fn check_feature(self, head: &[u8]) -> Result<()> {
        #[cfg(feature = "bolt")]
        let _ = head;
        let missing: Option<(&'static str, &'static str)> = match self {
            #[cfg(not(feature = "sample"))]
            FormatKind::SampleBinary | FormatKind::SampleExtBinary | FormatKind::SampleGcc => {
                Some(("LLVM sample profile", "sample"))
            }
            #[cfg(not(feature = "iprof"))]
            FormatKind::Iprof => Some(("GraalVM .iprof", "iprof")),
            #[cfg(not(feature = "jit"))]
            FormatKind::JitDump
            | FormatKind::R2rMap
            | FormatKind::PerfMap
            | FormatKind::PerfScript => Some(("jitdump, perf map and perf script", "jit")),
            #[cfg(not(feature = "bolt"))]
            FormatKind::Unknown if looks_like_bolt(head) => Some(("BOLT profile", "bolt")),
            _ => None,
        };
        match missing {
            Some((what, feature)) => Err(Error::new(ErrorKind::FeatureDisabled { what, feature })),
            None => Ok(()),
        }
    }

    /// A short name for messages.
    pub fn name(self) -> &'static str {
        match self {
            FormatKind::RawProfile => "raw profile (.profraw)",
            FormatKind::IndexedProfile => "indexed profile (.profdata)",
            FormatKind::TextProfile => "text profile (.proftext)",
            FormatKind::SampleBinary => "LLVM binary sample profile",
            FormatKind::SampleExtBinary => "LLVM extbinary sample profile",
            FormatKind::SampleGcc => "AutoFDO sample profile (GCC .gcov)",
            FormatKind::Iprof => "GraalVM Native Image profile (.iprof)",
            FormatKind::JitDump => "jitdump (jit-PID.dump)",
            FormatKind::R2rMap => ".NET ReadyToRun map (.r2rmap)",
            FormatKind::PerfMap => "perf symbol map (perf-PID.map)",
            FormatKind::PerfScript => "perf script text",
            FormatKind::Empty => "empty file",
            FormatKind::Unknown => "unknown format",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every family's input is recognised whatever the build; one whose feature is off is
    /// refused with the feature's name, the others go on to their readers. (`.ci/run` runs this test without default features too.)
    #[test]
    fn inputs_of_disabled_families_are_refused_by_feature() {
        let cases: [(&[u8], bool, &str); 5] = [
            (
                b"{\"types\": []}",
                cfg!(feature = "iprof"),
                "GraalVM .iprof",
            ),
            (
                b"adcg*704\0",
                cfg!(feature = "sample"),
                "LLVM sample profile",
            ),
            (
                b"DTiJ\x01\0\0\0",
                cfg!(feature = "jit"),
                "jitdump, perf map and perf script",
            ),
            (b"---\nheader:\n", cfg!(feature = "bolt"), "BOLT profile"),
            (b"no_lbr\n", cfg!(feature = "bolt"), "BOLT profile"),
        ];
        for (bytes, on, what) in cases {
            let r = FormatKind::sniff(bytes).check_feature(bytes);
            if on {
                assert!(r.is_ok(), "{what}: {r:?}");
            } else {
                let e = r.expect_err(what);
                assert!(
                    matches!(e.kind(), ErrorKind::FeatureDisabled { .. }),
                    "{what}: {e}"
                );
                assert!(
                    e.to_string()
                        .starts_with(&format!("this build has no {what} support"))
                );
            }
        }
        let raw = 0xff6c_7072_6f66_7281u64.to_le_bytes();
        assert!(FormatKind::sniff(&raw).check_feature(&raw).is_ok());
    }

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
        assert_eq!(FormatKind::sniff(b"DTiJ\x01\0\0\0"), FormatKind::JitDump);
        // ULEB128 of SPROF42\xff and SPROF42\x04, as llvm-profdata writes them.
        assert_eq!(
            FormatKind::sniff(&[0xff, 0xe5, 0xd0, 0xb1, 0xf4, 0xc9, 0x94, 0xa8, 0x53, 0x67]),
            FormatKind::SampleBinary
        );
        assert_eq!(
            FormatKind::sniff(&[0x84, 0xe4, 0xd0, 0xb1, 0xf4, 0xc9, 0x94, 0xa8, 0x53, 0x67]),
            FormatKind::SampleExtBinary
        );
        assert_eq!(FormatKind::sniff(b"JiTD\0\0\0\x01"), FormatKind::JitDump);
        assert_eq!(
            FormatKind::sniff(b"adcg*704\0\0\0\0"),
            FormatKind::SampleGcc
        );
        assert_eq!(
            FormatKind::sniff(b"FFFFFFFF 00 734D59D6DE0E96AA3C77B3E2ED498097\n"),
            FormatKind::R2rMap
        );
        // Text without a magic: recognised by the readers' rules, which only the `jit`
        // feature has (without it, the text is no format this build reads).
        let (map, script) = if cfg!(feature = "jit") {
            (FormatKind::PerfMap, FormatKind::PerfScript)
        } else {
            (FormatKind::Unknown, FormatKind::Unknown)
        };
        assert_eq!(
            FormatKind::sniff(b"18c4000 300 Builtin:DeoptimizationEntry_Eager\n"),
            map
        );
        assert_eq!(
            FormatKind::sniff(b"node 31327/31327  5873.004406: \n\t  14f02 f (/x)\n"),
            script
        );
        assert_eq!(
            FormatKind::sniff(b"main\n# Func Hash:\n1\n"),
            FormatKind::TextProfile
        );
        assert_eq!(
            FormatKind::sniff(b"\x7fELF\x02\x01\x01\x00"),
            FormatKind::Unknown
        );
    }
}
