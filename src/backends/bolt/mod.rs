//! Writers of BOLT profiles: `fdata` (the legacy text format) and YAML.

pub mod fdata;
pub mod report;
pub mod yaml;

pub use fdata::write_fdata;
pub use yaml::write_yaml;
