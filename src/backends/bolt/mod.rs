//! Writers of BOLT profiles: `fdata` (the legacy text format).

pub mod fdata;

pub use fdata::write_fdata;
