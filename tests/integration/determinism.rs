//! The same inputs in the same order give byte-identical output for any thread count and any
//! input window.

use crate::common::*;

#[test]
fn thread_count_and_window_do_not_change_the_output() {
    let dir = tempdir();
    let mut inputs: Vec<String> = Vec::new();
    for p in ["clang22", "clang19", "rustc"] {
        for f in raws_of(p) {
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            // One instrumentation kind (IR, no coverage/entry-only variants) so they all merge.
            if name.starts_with("ir-")
                || name.starts_with("vtable-")
                || name.starts_with("two-tu")
                || name.starts_with("merge-pool")
            {
                inputs.push(f.display().to_string());
            }
        }
    }
    // Repeat with weights, including fractional ones.
    let mut args = inputs.clone();
    for (i, f) in inputs.iter().enumerate() {
        args.push(format!(
            "--weighted-input={},{f}",
            ["2", "0.5", "3.25"][i % 3]
        ));
    }
    let mut outputs = Vec::new();
    for threads in ["1", "2", "3", "8"] {
        let out_path = dir.path().join(format!("t{threads}.profdata"));
        let mut a = vec![
            "-j".to_string(),
            threads.to_string(),
            "-o".into(),
            out_path.display().to_string(),
        ];
        a.extend(args.iter().cloned());
        let out = run_ours(&a);
        assert_ok(&out, "pgo-merge");
        outputs.push((threads, std::fs::read(&out_path).unwrap()));
    }
    for (t, bytes) in &outputs[1..] {
        assert!(bytes == &outputs[0].1, "-j {t} output differs from -j 1");
    }
}

#[test]
fn library_window_size_does_not_change_the_output() {
    use pgo_merge::passes::{MergeOptions, Weight};
    use pgo_merge::pipeline::{InputSpec, ReadOptions, merge_files_with};
    let inputs: Vec<InputSpec> = raws_of("clang22")
        .into_iter()
        .filter(|f| {
            f.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("ir-basic")
        })
        .map(|path| InputSpec::new(path, Weight::ONE))
        .collect();
    let write = |window, threads| {
        let mut opts = MergeOptions::default();
        opts.threads = threads;
        let mut read = ReadOptions::default();
        read.window = window;
        let m = merge_files_with(&inputs, &opts, &read, None).expect("merge");
        pgo_merge::backends::profdata::write(&m.profile, &Default::default())
            .expect("write")
            .0
    };
    let reference = write(0, 1);
    for (w, t) in [(1, 1), (1, 2), (2, 2), (3, 4)] {
        assert!(write(w, t) == reference, "window {w}, threads {t} differ");
    }
}
