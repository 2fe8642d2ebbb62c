//! Back-ends: turn the IR into output files and reports. They write to a buffer or any
//! `Write`; the driver decides where it goes.

pub mod bolt;
#[doc(hidden)]
pub mod cfmt;
pub mod debug_info;
pub mod iprof;
pub mod iprof_show;
pub mod jit_show;
pub mod order;
pub mod overlap;
pub mod profdata;
pub mod proftext;
pub mod sample;
pub mod show;
