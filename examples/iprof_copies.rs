//! Writes N copies of the real 4 MB iprof file (third-party data read from
//! `../shared/testdata-external/iprof/`) with shuffled ids into a directory, for measuring a
//! merge from the command line (peak memory with `/usr/bin/time -v`, which a criterion
//! benchmark cannot report):
//!
//! ```text
//! cargo run --release --example iprof_copies -- DIR [N=20]
//! /usr/bin/time -v target/release/pgo-merge DIR -o merged.iprof
//! ```

#[path = "../benches/support/iprof_copies.rs"]
mod iprof_copies;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(dir) = args.next() else {
        eprintln!("usage: iprof_copies DIR [N]");
        std::process::exit(2);
    };
    let n: usize = args
        .next()
        .map_or(20, |s| s.parse().expect("N is a number"));
    std::fs::create_dir_all(&dir).expect("create DIR");
    let files = iprof_copies::shuffled_copies(&iprof_copies::real_file(), n, dir.as_ref());
    eprintln!("wrote {} files to {dir}", files.len());
}
