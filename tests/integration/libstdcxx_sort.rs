//! Our reproduction of libstdc++'s `std::sort` against the real one: the same arrays (many
//! equal keys; random, ascending, descending and organ-pipe patterns; 1 to 400 elements) sorted
//! by key by a C++ program built with `g++`, and by `sys::libstdcxx::sort_by`; the order of
//! the equal elements (their original positions) must be the same.

use std::fmt::Write as _;

use pgo_merge::sys::libstdcxx::sort_by;

use crate::common::*;

const ARRAYS: u64 = 3000;

const PROGRAM: &str = r#"
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>
struct E { uint64_t k; uint32_t id; };
int main() {
  uint64_t state = 12345;
  auto next = [&](uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % n;
  };
  for (uint64_t t = 0; t < ARRAYS; t++) {
    size_t n = next(400) + 1;
    uint64_t range = 1 + next(t % 3 == 0 ? 3 : 50);
    std::vector<E> v(n);
    for (size_t i = 0; i < n; i++) {
      uint64_t k;
      switch (t % 4) {
        case 0: k = next(range); break;
        case 1: k = i % range; break;
        case 2: k = (n - i) % range; break;
        default: k = (i < n / 2 ? i : n - i) % range;
      }
      v[i] = {k, (uint32_t)i};
    }
    std::sort(v.begin(), v.end(), [](const E& a, const E& b) { return a.k < b.k; });
    for (auto& e : v) printf("%u ", e.id);
    printf("\n");
  }
}
"#;

/// The same arrays as [`PROGRAM`], sorted by ours, printed the same way.
fn ours() -> String {
    let mut state: u64 = 12345;
    let mut next = |n: u64| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) % n
    };
    let mut out = String::new();
    for t in 0..ARRAYS {
        let n = (next(400) + 1) as usize;
        let range = 1 + next(if t % 3 == 0 { 3 } else { 50 });
        let mut v: Vec<(u64, u32)> = (0..n)
            .map(|i| {
                let k = match t % 4 {
                    0 => next(range),
                    1 => i as u64 % range,
                    2 => (n - i) as u64 % range,
                    _ => (if i < n / 2 { i } else { n - i }) as u64 % range,
                };
                (k, i as u32)
            })
            .collect();
        sort_by(&mut v, &|a: &(u64, u32), b: &(u64, u32)| a.0 < b.0);
        for e in &v {
            write!(out, "{} ", e.1).expect("format");
        }
        out.push('\n');
    }
    out
}

#[test]
fn equal_keys_end_where_libstdcxx_puts_them() {
    let Some(gxx) = tool("g++", "equal_keys_end_where_libstdcxx_puts_them") else {
        return;
    };
    let dir = tempdir();
    let src = dir.path().join("sort.cpp");
    let exe = dir.path().join("sort");
    std::fs::write(&src, PROGRAM.replace("ARRAYS", &ARRAYS.to_string())).expect("write");
    let out = run(
        &gxx,
        &[
            "-O2".as_ref(),
            "-o".as_ref(),
            exe.as_os_str(),
            src.as_os_str(),
        ],
    );
    assert_ok(&out, "g++ sort.cpp");
    let out = run(&exe, &[]);
    assert_ok(&out, "sort");
    let theirs = String::from_utf8(out.stdout).expect("utf-8");
    let ours = ours();
    for (i, (a, b)) in ours.lines().zip(theirs.lines()).enumerate() {
        assert_eq!(a, b, "array {i}: ours vs libstdc++");
    }
    assert_eq!(ours.lines().count(), theirs.lines().count());
}
