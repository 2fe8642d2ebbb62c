//! Profile-kind flags: what kind of instrumentation produced a profile.
//!
//! These mirror the variant bits LLVM keeps in the high 32 bits of the raw and indexed version
//! words (bit 55 and up), plus one bit of our own, [`ProfileKind::FRONTEND`], because a profile
//! without the IR bit is a front-end (clang `-fprofile-instr-generate`, rustc coverage) profile.

use std::fmt;

/// A set of profile-kind flags. Invariant: only the named bits are ever set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ProfileKind(u32);

impl ProfileKind {
    /// IR-level instrumentation (`-fprofile-generate`, rustc `-Cprofile-generate`).
    pub const IR: ProfileKind = ProfileKind(1 << 0);
    /// Context-sensitive IR records present (`-fcs-profile-generate`).
    pub const CONTEXT_SENSITIVE: ProfileKind = ProfileKind(1 << 1);
    /// The entry block is always instrumented first (`-pgo-instrument-entry`).
    pub const ENTRY_FIRST: ProfileKind = ProfileKind(1 << 2);
    /// Loop-entry blocks are instrumented (`-pgo-instrument-loop-entries`, LLVM 20+).
    pub const LOOP_ENTRIES: ProfileKind = ProfileKind(1 << 3);
    /// Counters are single-byte coverage flags.
    pub const BYTE_COVERAGE: ProfileKind = ProfileKind(1 << 4);
    /// Only function entries are instrumented.
    pub const FUNCTION_ENTRY_ONLY: ProfileKind = ProfileKind(1 << 5);
    /// Temporal traces (first-call order) are present.
    pub const TEMPORAL: ProfileKind = ProfileKind(1 << 6);
    /// A MemProf section was present in the input (never carried to the output).
    pub const MEMPROF: ProfileKind = ProfileKind(1 << 7);
    /// Counters must be correlated through debug info (raw profiles only).
    pub const DEBUG_INFO_CORRELATE: ProfileKind = ProfileKind(1 << 8);
    /// Explicitly a front-end profile (no IR bit).
    pub const FRONTEND: ProfileKind = ProfileKind(1 << 9);

    const ALL: [(ProfileKind, u64, &'static str); 9] = [
        (ProfileKind::LOOP_ENTRIES, 1 << 55, "loop-entries"),
        (ProfileKind::IR, 1 << 56, "ir"),
        (ProfileKind::CONTEXT_SENSITIVE, 1 << 57, "context-sensitive"),
        (ProfileKind::ENTRY_FIRST, 1 << 58, "entry-first"),
        (
            ProfileKind::DEBUG_INFO_CORRELATE,
            1 << 59,
            "debug-info-correlate",
        ),
        (ProfileKind::BYTE_COVERAGE, 1 << 60, "single-byte-coverage"),
        (
            ProfileKind::FUNCTION_ENTRY_ONLY,
            1 << 61,
            "function-entry-only",
        ),
        (ProfileKind::MEMPROF, 1 << 62, "memprof"),
        (ProfileKind::TEMPORAL, 1 << 63, "temporal"),
    ];

    /// No flags.
    pub const fn empty() -> Self {
        ProfileKind(0)
    }

    /// True if every flag of `other` is set.
    pub const fn contains(self, other: ProfileKind) -> bool {
        self.0 & other.0 == other.0
    }

    /// True if any flag of `other` is set.
    pub const fn intersects(self, other: ProfileKind) -> bool {
        self.0 & other.0 != 0
    }

    /// Sets the flags of `other`.
    pub fn insert(&mut self, other: ProfileKind) {
        self.0 |= other.0;
    }

    /// Clears the flags of `other`.
    pub fn remove(&mut self, other: ProfileKind) {
        self.0 &= !other.0;
    }

    /// Both sets.
    #[must_use]
    pub const fn union(self, other: ProfileKind) -> Self {
        ProfileKind(self.0 | other.0)
    }

    /// Decodes the variant bits of an LLVM version word (raw or indexed). Profiles without the
    /// IR bit get [`ProfileKind::FRONTEND`]. Returns the flags and the unknown bits of the high
    /// 32 bits, which callers may warn about.
    pub fn from_version_word(word: u64) -> (ProfileKind, u64) {
        let mut k = ProfileKind::empty();
        let mut known = 0u64;
        for (flag, mask, _) in Self::ALL {
            known |= mask;
            if word & mask != 0 {
                k.insert(flag);
            }
        }
        if !k.contains(ProfileKind::IR) {
            k.insert(ProfileKind::FRONTEND);
        }
        let unknown = word & 0xffff_ffff_0000_0000 & !known;
        (k, unknown)
    }

    /// The variant bits LLVM writes into an indexed header for this kind. The debug-info
    /// correlation and MemProf bits are never written (we carry no MemProf).
    pub fn indexed_variant_bits(self) -> u64 {
        let mut w = 0u64;
        for (flag, mask, _) in Self::ALL {
            if flag == ProfileKind::DEBUG_INFO_CORRELATE || flag == ProfileKind::MEMPROF {
                continue;
            }
            if self.contains(flag) {
                w |= mask;
            }
        }
        // CS implies IR in LLVM's writer.
        if self.contains(ProfileKind::CONTEXT_SENSITIVE) {
            w |= 1 << 56;
        }
        w
    }

    /// True for IR-level profiles (including context-sensitive ones).
    pub fn is_ir(self) -> bool {
        self.intersects(ProfileKind::IR.union(ProfileKind::CONTEXT_SENSITIVE))
    }

    /// Flag names, for `show` and messages.
    pub fn names(self) -> Vec<&'static str> {
        let mut v = Vec::new();
        if self.contains(ProfileKind::FRONTEND) {
            v.push("front-end");
        }
        for (flag, _, name) in Self::ALL {
            if self.contains(flag) {
                v.push(name);
            }
        }
        v
    }
}

impl fmt::Display for ProfileKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.names();
        if n.is_empty() {
            f.write_str("(none)")
        } else {
            f.write_str(&n.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_observed_words() {
        let (k, unk) = ProfileKind::from_version_word(0x0180_0000_0000_000a);
        assert!(k.contains(ProfileKind::IR) && k.contains(ProfileKind::LOOP_ENTRIES));
        assert_eq!(unk, 0);
        let (k, _) = ProfileKind::from_version_word(0x0a);
        assert!(k.contains(ProfileKind::FRONTEND) && !k.is_ir());
        let (k, _) = ProfileKind::from_version_word(0x3100_0000_0000_000a);
        assert!(k.contains(ProfileKind::BYTE_COVERAGE.union(ProfileKind::FUNCTION_ENTRY_ONLY)));
        assert_eq!(k.indexed_variant_bits(), 0x3100_0000_0000_0000);
        let (_, unk) = ProfileKind::from_version_word(0x0000_0001_0000_000a);
        assert_eq!(unk, 0x0000_0001_0000_0000);
    }
}
