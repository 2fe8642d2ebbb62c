//! The fuzz targets' bodies (`../targets.rs`, shared with the regression test
//! `tests/integration/fuzz_regressions.rs`).

// Fuzzing is for finding overflows and failed assertions too: `Cargo.toml`'s release profile
// turns both on, and a build without them is refused rather than run.
#[cfg(not(debug_assertions))]
compile_error!("fuzz builds need debug assertions and overflow checks (see fuzz/Cargo.toml)");

#[path = "../targets.rs"]
pub mod targets;
