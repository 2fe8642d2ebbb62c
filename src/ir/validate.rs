//! Invariant checks on the IR, used by tests and after reading untrusted inputs.

use super::profile::Profile;
use crate::bytes::limits::MAX_VALUES_PER_SITE;

/// A broken invariant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Index of the record concerned, if any.
    pub record: Option<usize>,
    /// What is wrong.
    pub message: String,
}

/// Checks the invariants a back-end relies on: every record has counters, every record's name
/// is known, and no site holds more than 255 values. Returns every violation found.
pub fn check(profile: &Profile<'_>) -> Vec<Violation> {
    let mut out = Vec::new();
    for (i, r) in profile.records.iter().enumerate() {
        if r.counters.is_empty() {
            out.push(Violation {
                record: Some(i),
                message: "record has no counters".into(),
            });
        }
        if !profile.names.contains(r.key.name) {
            out.push(Violation {
                record: Some(i),
                message: format!("no name for name hash {:#018x}", r.key.name),
            });
        }
        if let Some(v) = &r.values {
            for sites in &v.sites {
                if sites.iter().any(|s| s.values.len() > MAX_VALUES_PER_SITE) {
                    out.push(Violation {
                        record: Some(i),
                        message: "a value site holds more than 255 values".into(),
                    });
                }
            }
        }
    }
    out
}
