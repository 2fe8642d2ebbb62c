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
        use std::io::Write as _;
        // Writing to a Vec cannot fail; formatting straight into it allocates no string.
        let _ = if self.discriminator != 0 {
            write!(out, "{}.{}", self.line_offset, self.discriminator)
        } else {
            write!(out, "{}", self.line_offset)
        };
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

/// How many flow-sensitive discriminator bits a reader keeps (llvm-profdata's
/// `--fs-discriminator-pass`, LLVM's `FSDiscriminatorPass`).
///
/// Flow-sensitive AutoFDO (`-enable-fs-discriminator`) packs one discriminator field per
/// pass into a location's 32-bit discriminator: bits 0–7 are the base discriminator, then
/// six bits for each of passes 1, 2 and 3 (bits 8–13, 14–19, 20–25), and bits 26–31 for the
/// last pass. A pass keeps its own bits and those below; the bits above are cleared.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FsDiscriminatorPass {
    /// The base discriminator only (bits 0–7).
    Base,
    /// Base and pass 1 (bits 0–13).
    Pass1,
    /// Base and passes 1–2 (bits 0–19).
    Pass2,
    /// Base and passes 1–3 (bits 0–25).
    Pass3,
    /// Every bit (llvm-profdata's default: nothing is cleared).
    #[default]
    PassLast,
}

impl FsDiscriminatorPass {
    /// Every pass, in order.
    pub const ALL: [FsDiscriminatorPass; 5] = [
        FsDiscriminatorPass::Base,
        FsDiscriminatorPass::Pass1,
        FsDiscriminatorPass::Pass2,
        FsDiscriminatorPass::Pass3,
        FsDiscriminatorPass::PassLast,
    ];

    /// The discriminator bits kept.
    pub const fn mask(self) -> u32 {
        match self {
            FsDiscriminatorPass::Base => 0xff,
            FsDiscriminatorPass::Pass1 => 0x3fff,
            FsDiscriminatorPass::Pass2 => 0xf_ffff,
            FsDiscriminatorPass::Pass3 => 0x3ff_ffff,
            FsDiscriminatorPass::PassLast => u32::MAX,
        }
    }

    /// The value as llvm-profdata spells it (`Base`, `Pass1`, `Pass2`, `Pass3`, `PassLast`).
    pub const fn llvm_name(self) -> &'static str {
        match self {
            FsDiscriminatorPass::Base => "Base",
            FsDiscriminatorPass::Pass1 => "Pass1",
            FsDiscriminatorPass::Pass2 => "Pass2",
            FsDiscriminatorPass::Pass3 => "Pass3",
            FsDiscriminatorPass::PassLast => "PassLast",
        }
    }

    /// The pass llvm-profdata's spelling `s` names (exact case, as LLVM's option parser).
    pub fn from_llvm_name(s: &str) -> Option<FsDiscriminatorPass> {
        Self::ALL.into_iter().find(|p| p.llvm_name() == s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pass_masks_keep_their_bits_and_those_below() {
        let masks: Vec<u32> = FsDiscriminatorPass::ALL.iter().map(|p| p.mask()).collect();
        assert_eq!(masks, [0xff, 0x3fff, 0xfffff, 0x3ffffff, 0xffffffff]);
        for p in FsDiscriminatorPass::ALL {
            assert_eq!(FsDiscriminatorPass::from_llvm_name(p.llvm_name()), Some(p));
        }
        assert_eq!(FsDiscriminatorPass::from_llvm_name("pass1"), None);
        assert_eq!(FsDiscriminatorPass::from_llvm_name("Pass4"), None);
    }
}
