//! Back-ends: turn the IR into output files.

pub mod cfmt;
pub mod iprof;
pub mod jit_show;
pub mod profdata;
pub mod proftext;
pub mod show;
