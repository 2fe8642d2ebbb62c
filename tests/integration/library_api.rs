//! The library as others build on it: the size of its error, what its public API lets a user
//! do from outside the crate.

/// `Error` is one word (a box), so every `Result` of the crate stays small.
#[test]
fn error_is_at_most_two_words() {
    assert!(std::mem::size_of::<pgo_merge::Error>() <= 16);
    assert!(std::mem::size_of::<pgo_merge::Result<()>>() <= 16);
}
