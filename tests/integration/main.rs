//! The integration tests: one binary, one module per area. Tests that need real LLVM tools
//! (llvm-profdata 9–23, clang 14/19, rustc) find them on PATH; `.ci/run` installs them, and a
//! test whose tool is missing prints a SKIPPED line (or fails when PGO_MERGE_REQUIRE_TOOLS=1).

mod common;

mod architecture;
mod bad_indexed;
mod bad_input;
mod big_endian;
mod cargo_pgo;
mod cli;
mod convert;
mod determinism;
mod dropin;
mod fast_path;
mod fuzz_regressions;
mod hostile_system;
mod indexed_text;
mod inputs_change;
mod iprof;
mod iprof_props;
mod iprof_stream;
mod jit_inputs;
mod jit_wild;
mod jitdump;
mod libstdcxx_sort;
mod llvm_identity;
mod llvm_suite;
mod merge_readers;
mod messages;
mod normalise_llvm;
mod older_llvm;
mod output_faults;
mod raw_versions;
mod readme;
mod real_use;
mod sample_binary;
mod sample_filters;
mod sample_flat;
mod sample_fs;
mod sample_gcov;
mod sample_generated;
mod sample_kinds;
mod sample_md5_names;
mod sample_options;
mod sample_overlap;
mod sample_text;
mod sample_trim_order;
mod sample_use;
mod sample_weights;
mod sharded_merge;
mod show_json;
