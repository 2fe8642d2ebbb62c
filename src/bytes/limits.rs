//! Named limits on counts read from inputs.
//!
//! A reader never allocates memory sized by a field it has not checked: either the field is
//! bounded by the bytes that are actually present (most counts are, since every element takes
//! at least one byte), or it is checked against one of these limits first. The limits are far
//! above anything real profiles contain.

/// Maximum bytes a zlib-compressed names chunk may inflate to (1 GiB). LLVM's names for the
/// largest known binaries (Chromium) are well below 100 MiB.
pub const MAX_INFLATED_NAMES: u64 = 1 << 30;

/// zlib cannot expand data by more than about 1032:1; a chunk that claims more is corrupt.
pub const MAX_ZLIB_RATIO: u64 = 1032;

/// Maximum value kinds in one value-profile block (LLVM knows 3: indirect call, mem-op, vtable).
pub const MAX_VALUE_KINDS: u32 = 3;

/// Maximum number of (value, count) pairs kept per value site, as LLVM's
/// `INSTR_PROF_MAX_NUM_VAL_PER_SITE`.
pub const MAX_VALUES_PER_SITE: usize = 255;

/// Maximum number of raw profiles concatenated in one file (each at least one header long, so
/// this only guards against pathological loops).
pub const MAX_PROFILES_PER_FILE: usize = 1 << 20;
