//! The record cold-context trimming leaves of LLVM's map (insertions and erasures), from
//! which extbinary writers replay the map's order: checked by hand on small profiles. The
//! outputs themselves are compared with llvm-profdata in `sample_generated.rs`.
//!
//! (Integration tests rather than unit tests of the pass: they read their profiles with
//! the text front-end, which passes may not use.)

use pgo_merge::codec::unordered_order::{UnorderedOrder, sample_map_key, sample_map_order};
use pgo_merge::frontends::sample::text::{TextDialect, read};
use pgo_merge::ir::sample::{SampleContext, SampleProfile};
use pgo_merge::passes::sample::{ColdContextOptions, trim_cold_contexts};

fn profile(text: &str) -> SampleProfile {
    read(text.as_bytes(), TextDialect::for_llvm(22)).unwrap()
}

fn ctx(p: &SampleProfile, text: &str) -> SampleContext {
    p.functions
        .keys()
        .chain(&p.erased)
        .find(|c| c.to_string() == text)
        .unwrap_or_else(|| panic!("no {text}"))
        .clone()
}

/// A cold base profile merged into itself is erased and inserted again, as LLVM's map
/// does: the record stays a history the map's order can be replayed from, with the base
/// profile at the place a new insertion gives it.
#[test]
fn erased_then_inserted_again_is_replayed() {
    let mut p = profile(
        "[main:1 @ foo]:5:0\n 1: 5\n[bar]:100000000:0\n 1: 100000000\n[foo]:3:0\n 1: 3\n\
         [baz]:90000000:0\n 1: 90000000\n",
    );
    let before: Vec<SampleContext> = sample_map_order(&p)
        .expect("order known")
        .into_iter()
        .cloned()
        .collect();
    let mut options = ColdContextOptions::default();
    options.trim = false;
    options.merge = true;
    options.frame_depth = 1;
    let stats = trim_cold_contexts(&mut p, &options).unwrap();
    assert_eq!((stats.cold, stats.merged_into), (2, 1));
    let foo = ctx(&p, "foo");
    assert_eq!(p.functions[&foo].total_samples, 8);
    assert_eq!(p.insertion_order.iter().filter(|c| **c == foo).count(), 2);
    assert_eq!(p.erased.len(), 2);
    // The same history, replayed by hand.
    let key = |c: &SampleContext| sample_map_key(c, p.context_hash);
    let mut m = UnorderedOrder::new();
    for c in &p.insertion_order[..4] {
        m.insert(key(c));
    }
    for c in before.iter().filter(|c| c.to_string().contains("foo")) {
        assert!(m.remove(key(c)));
    }
    assert!(m.insert(key(&foo)));
    let replayed: Vec<u64> = sample_map_order(&p)
        .expect("order still known")
        .into_iter()
        .map(key)
        .collect();
    assert_eq!(replayed, m.keys_in_order());
    assert_eq!(replayed.len(), 3);
}

/// Trimmed without merging, the cold profiles are erasures only.
#[test]
fn trimmed_profiles_are_recorded_as_erased() {
    let mut p =
        profile("[main:1 @ foo]:5:0\n 1: 5\n[bar]:100000000:0\n 1: 100000000\n[foo]:3:0\n 1: 3\n");
    let mut options = ColdContextOptions::default();
    options.trim = true;
    options.merge = false;
    options.frame_depth = 1;
    trim_cold_contexts(&mut p, &options).unwrap();
    assert_eq!(p.functions.len(), 1);
    assert_eq!(p.erased.len(), 2);
    assert_eq!(sample_map_order(&p).map(|o| o.len()), Some(1));
}
