//! The driver of `merge --supplement-instr-with-sample`: checks the request as
//! llvm-profdata does (in the drop-in), reads the sample profile and runs the supplement pass
//! over the merged instrumentation profile before it is written.

use std::path::{Path, PathBuf};

use super::{InputSpec, Message, request_error};
use crate::error::Result;
use crate::ir::{Profile, Weight};
pub use crate::passes::supplement_options::SupplementOptions;

/// A sample profile to supplement the merged instrumentation profile with.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Supplement {
    /// The sample profile (any encoding).
    pub sample_profile: PathBuf,
    /// The thresholds.
    pub options: SupplementOptions,
}

impl Supplement {
    /// Supplementing with `sample_profile`, tuned by `options`.
    pub fn new(sample_profile: impl Into<PathBuf>, options: SupplementOptions) -> Self {
        Supplement {
            sample_profile: sample_profile.into(),
            options,
        }
    }
}

/// llvm-profdata's conditions, which the drop-in keeps: an output file (not standard
/// output), exactly one input, of weight 1. Natively any inputs are merged first and the
/// result supplemented, and standard output is fine.
pub(crate) fn check_llvm_request(output: Option<&Path>, inputs: &[InputSpec]) -> Result<()> {
    if output.is_none_or(|o| o == Path::new("-")) {
        return Err(request_error(
            "cannot write indexed profdata format to stdout",
        ));
    }
    if inputs.len() != 1 {
        return Err(request_error("expect one input to be an instr profile"));
    }
    if inputs[0].weight != Weight::ONE {
        return Err(request_error("expect instr profile doesn't have weight"));
    }
    Ok(())
}

/// Reads `s.sample_profile` as LLVM release `target_llvm` does and supplements `profile`
/// with it; the pass's warnings go to `messages`. Errors name the sample profile.
#[cfg(feature = "sample")]
pub(crate) fn apply(
    s: &Supplement,
    target_llvm: Option<u32>,
    profile: &mut Profile<'_>,
    messages: &mut Vec<Message>,
) -> Result<()> {
    use crate::frontends::open::SampleReader;
    use crate::ir::sample::{FsDiscriminatorPass, summary};
    let path = &s.sample_profile;
    let reader = SampleReader::new(
        target_llvm.unwrap_or(super::sample::DEFAULT_TARGET_LLVM),
        FsDiscriminatorPass::default(),
        false,
    );
    let file = InputSpec::new(path, Weight::ONE).open()?;
    let samples = reader
        .read(file.bytes())
        .map_err(|e| file.or_changed(e).with_path(path))?;
    file.check_unchanged().map_err(|e| e.with_path(path))?;
    let sample_summary = summary::of_reader(&samples);
    let report =
        crate::passes::supplement::supplement(profile, &samples, &sample_summary, &s.options);
    messages.extend(report.warnings.into_iter().map(Message::Warning));
    Ok(())
}

/// Without sample-profile support the request is refused.
#[cfg(not(feature = "sample"))]
pub(crate) fn apply(
    _s: &Supplement,
    _target_llvm: Option<u32>,
    _profile: &mut Profile<'_>,
    _messages: &mut Vec<Message>,
) -> Result<()> {
    Err(crate::error::Error::new(
        crate::error::ErrorKind::FeatureDisabled {
            what: "sample profiles (--supplement-instr-with-sample)",
            feature: "sample",
        },
    ))
}
