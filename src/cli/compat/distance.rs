//! Edit distances for "Did you mean" suggestions.

/// Levenshtein distance in characters, as LLVM's `StringRef::edit_distance` with
/// replacements allowed.
pub fn edit_distance(a: &str, b: &str) -> usize {
    strsim::levenshtein(a, b)
}

/// Edit distance in characters counting a swap of two neighbouring characters as one edit
/// (optimal string alignment), for telling typos of a word apart.
pub fn typo_distance(a: &str, b: &str) -> usize {
    strsim::osa_distance(a, b)
}
