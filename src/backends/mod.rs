//! Back-ends: turn the IR into output files and reports. They write to a buffer or any
//! `Write`; the driver decides where it goes.

#[cfg(feature = "bolt")]
pub mod bolt;
#[doc(hidden)]
pub mod cfmt;
pub mod debug_info;
#[cfg(feature = "iprof")]
pub mod iprof;
#[cfg(feature = "iprof")]
pub mod iprof_show;
#[cfg(feature = "jit")]
pub mod jit_show;
pub mod order;
pub mod overlap;
pub mod profdata;
pub mod proftext;
#[cfg(feature = "sample")]
pub mod sample;
pub mod show;
