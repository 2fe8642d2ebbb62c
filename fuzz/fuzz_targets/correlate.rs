#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pgo_merge_fuzz::targets::correlate(data));
