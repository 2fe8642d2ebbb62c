//! Function filters of a sample merge (`--function`, `--no-function`), as llvm-profdata's
//! `filterFunctions` applies them to a sample profile map: after cold-context trimming and
//! layout conversion, before the output is written.
//!
//! A top-level profile is matched by its context's textual form (the function name, a
//! hash in decimal for MD5 profiles, or `main:3 @ foo` for a calling context). It is kept if
//! it matches the positive pattern (when given) and not the negative one, which wins. When
//! the profile holds MD5 names, a context equal to the decimal MD5 of a pattern also counts
//! as a match, so that a plain function name still selects its hashed profile. Patterns are
//! compiled by [`crate::passes::filter::compile`] (Rust `regex` syntax, MSVC names literal).
//!
//! Also pgo-merge's `--sparse` for sample merges ([`drop_empty`]), which llvm-profdata
//! accepts with `--sample` and ignores.

use regex::Regex;

use crate::codec::unordered_order::sample_map_order;
use crate::ir::sample::{FunctionId, SampleContext, SampleProfile};

/// A `--function`/`--no-function` pair: each pattern with the decimal MD5 of its text.
#[derive(Debug, Clone, Default)]
pub struct SampleFilter {
    keep: Option<(Regex, String)>,
    drop: Option<(Regex, String)>,
}

impl SampleFilter {
    /// A filter from compiled patterns and their source text (whose MD5 LLVM compares with
    /// hashed names).
    pub fn new(keep: Option<(Regex, &str)>, drop: Option<(Regex, &str)>) -> Self {
        let md5 = |(r, text): (Regex, &str)| {
            (r, FunctionId::name(text.as_bytes()).hash_code().to_string())
        };
        SampleFilter {
            keep: keep.map(md5),
            drop: drop.map(md5),
        }
    }

    /// True if there is nothing to filter.
    pub fn is_empty(&self) -> bool {
        self.keep.is_none() && self.drop.is_none()
    }

    /// Removes the top-level profiles the filter rejects. Returns (profiles removed,
    /// profiles before), which llvm-profdata reports as "N of M functions in the original
    /// profile are filtered."
    ///
    /// Removed contexts are recorded in [`SampleProfile::erased`], in the order LLVM's map
    /// iterates them (LLVM erases while it iterates), so that a writer replaying the map's
    /// order sees what LLVM's map holds afterwards.
    pub fn retain(&self, profile: &mut SampleProfile) -> (usize, usize) {
        let total = profile.functions.len();
        if self.is_empty() {
            return (0, total);
        }
        let hashed = profile
            .functions
            .keys()
            .any(|c| matches!(c.function(), FunctionId::Md5(_)));
        let matches =
            |(re, md5): &(Regex, String), text: &str| re.is_match(text) || (hashed && text == md5);
        let rejected = |c: &SampleContext| {
            let text = c.to_string();
            self.drop.as_ref().is_some_and(|d| matches(d, &text))
                || self.keep.as_ref().is_some_and(|k| !matches(k, &text))
        };
        let mut removed = 0;
        for c in map_order(profile) {
            if rejected(&c) && profile.functions.remove(&c).is_some() {
                profile.erased.push(c);
                removed += 1;
            }
        }
        (removed, total)
    }
}

/// The top-level contexts in the order LLVM's map iterates them (the writing order when that
/// cannot be replayed): the order LLVM erases in while it iterates.
fn map_order(profile: &SampleProfile) -> Vec<SampleContext> {
    match sample_map_order(profile) {
        Some(o) => o.into_iter().cloned().collect(),
        None => profile
            .sorted()
            .into_iter()
            .map(|(c, _)| c.clone())
            .collect(),
    }
}

/// Removes the top-level profiles without samples (total 0): pgo-merge's `--sparse` for
/// sample merges. LLVM's sample loader treats a function whose profile has no samples as
/// one without a profile, so they only take room. Returns how many were removed; they are
/// recorded in [`SampleProfile::erased`] as [`SampleFilter::retain`] records its own.
pub fn drop_empty(profile: &mut SampleProfile) -> usize {
    let mut removed = 0;
    for c in map_order(profile) {
        if profile
            .functions
            .get(&c)
            .is_some_and(|f| f.total_samples == 0)
        {
            profile.functions.remove(&c);
            profile.erased.push(c);
            removed += 1;
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::filter::compile;

    fn profile(names: &[&str]) -> SampleProfile {
        let mut p = SampleProfile::new();
        for name in names {
            let ctx = SampleContext::Function(FunctionId::name(name.as_bytes()));
            p.insertion_order.push(ctx.clone());
            p.entry(ctx).total_samples = 1;
        }
        p
    }

    fn names(p: &SampleProfile) -> Vec<String> {
        let mut v: Vec<String> = p.functions.keys().map(|c| c.to_string()).collect();
        v.sort();
        v
    }

    #[test]
    fn negative_pattern_wins_and_removed_are_recorded() {
        let mut p = profile(&["main", "map_get", "hash"]);
        let f = SampleFilter::new(
            Some((compile("^ma").unwrap(), "^ma")),
            Some((compile("get").unwrap(), "get")),
        );
        assert_eq!(f.retain(&mut p), (2, 3));
        assert_eq!(names(&p), ["main"]);
        assert_eq!(p.erased.len(), 2);
    }

    #[test]
    fn a_name_selects_its_hashed_profile() {
        let mut p = SampleProfile::new();
        for name in ["checksum", "other"] {
            let h = FunctionId::name(name.as_bytes()).hash_code();
            p.entry(SampleContext::Function(FunctionId::Md5(h)));
        }
        let f = SampleFilter::new(Some((compile("checksum").unwrap(), "checksum")), None);
        assert_eq!(f.retain(&mut p), (1, 2));
        let kept = FunctionId::name(b"checksum").hash_code().to_string();
        assert_eq!(names(&p), [kept]);
    }
}
