//! Back-ends: turn the IR into output files.

pub mod profdata;
pub mod proftext;
