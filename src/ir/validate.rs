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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{
        Counters, FunctionKey, FunctionRecord, SymbolTable, ValueCount, ValueKind, ValueProfile,
        ValueSite,
    };
    use std::sync::Arc;

    #[test]
    fn finds_each_kind_of_violation() {
        let mut names = SymbolTable::new();
        let known = names.insert(b"main");
        let mut p = Profile {
            names: Arc::new(names),
            ..Profile::default()
        };
        p.records.push(FunctionRecord {
            key: FunctionKey {
                name: known,
                cfg: 1,
            },
            counters: Counters::Owned(vec![1]),
            ..FunctionRecord::default()
        });
        assert!(check(&p).is_empty());
        p.records.push(FunctionRecord {
            key: FunctionKey { name: 42, cfg: 1 },
            counters: Counters::Owned(vec![]),
            ..FunctionRecord::default()
        });
        let mut v = ValueProfile::default();
        v.kind_mut(ValueKind::MemOpSize).push(ValueSite {
            values: (0..300)
                .map(|i| ValueCount { value: i, count: 1 })
                .collect(),
        });
        p.records[0].values = Some(Box::new(v));
        let found = check(&p);
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(found.iter().any(|v| v.message.contains("no counters")));
        assert!(found.iter().any(|v| v.message.contains("no name")));
        assert!(found.iter().any(|v| v.message.contains("255")));
    }
}
