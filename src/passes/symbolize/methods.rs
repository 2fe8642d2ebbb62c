//! Per-method sample counts of a profile's `samplingProfiles`.

use crate::ir::fx::FxHashMap;
use crate::ir::iprof::{IprofProfile, add_counts};
use crate::ir::java_symbols::MethodId;

/// Per-method sample counts of a profile's `samplingProfiles`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodSamples {
    /// `Declaring.name(params)ret`.
    pub method: String,
    /// Samples in which the method is the innermost frame.
    pub self_samples: u64,
    /// Samples in which the method is on the stack (once per sample, even if recursive).
    pub total_samples: u64,
}

/// Self and total sample counts per method, sorted by self then total (descending), then
/// name.
pub fn method_samples(p: &IprofProfile) -> Vec<MethodSamples> {
    // Per method: self count, total count, and the index of the last stack that counted it
    // in its total (a method recursing in one stack counts once there). Constant work per
    // frame: a list of the methods seen in the stack made a stack of n frames cost n².
    let mut acc: FxHashMap<MethodId, (u64, u64, usize)> = FxHashMap::default();
    for (i, (site, &c)) in p.samples.iter().enumerate() {
        for (k, f) in p.contexts.frames(*site).enumerate() {
            let e = acc.entry(f.method).or_insert((0, 0, usize::MAX));
            if k == 0 {
                e.0 = add_counts(e.0, c);
            }
            if e.2 != i {
                e.2 = i;
                e.1 = add_counts(e.1, c);
            }
        }
    }
    let mut v: Vec<MethodSamples> = acc
        .into_iter()
        .map(|(m, (s, t, _))| MethodSamples {
            method: p.symbols.display_method(m),
            self_samples: s,
            total_samples: t,
        })
        .collect();
    v.sort_by(|a, b| {
        b.self_samples
            .cmp(&a.self_samples)
            .then(b.total_samples.cmp(&a.total_samples))
            .then_with(|| a.method.cmp(&b.method))
    });
    v
}
