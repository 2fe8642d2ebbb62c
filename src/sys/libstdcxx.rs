//! `std::sort` as GNU libstdc++ implements it (introsort: median-of-three quicksort down to
//! runs of 16, heap sort past a depth of 2·log2 n, then one insertion sort), and its binary
//! heap (`std::push_heap`, `std::pop_heap`, under `std::priority_queue`), reproduced step by
//! step so that equal elements end up in the same order.
//!
//! `llvm-profdata` sorts a value site by value with `llvm::sort`, which is `std::sort`: not
//! stable. When a site holds one value several times (indirect-call targets outside the
//! profile all become 0) and has more than 16 entries, which of those entries a later merge
//! adds to depends on this order. The `llvm-profdata` packaged by Debian and Ubuntu (and
//! apt.llvm.org) is built against libstdc++, so this is the order its merges produce; a build
//! against libc++ would order such entries differently.
//!
//! Written from the algorithm's description in libstdc++'s `bits/stl_algo.h` and
//! `bits/stl_heap.h` (GPL with the runtime exception); no code is taken from it.

/// Runs of at most this many elements are left to the final insertion sort.
const THRESHOLD: usize = 16;

/// Sorts `v` so that `less` holds between no later and earlier element, moving elements
/// exactly as libstdc++'s `std::sort(v.begin(), v.end(), less)` does.
pub fn sort_by<T: Copy>(v: &mut [T], less: &impl Fn(&T, &T) -> bool) {
    let n = v.len();
    if n < 2 {
        return;
    }
    introsort_loop(v, 2 * floor_log2(n), less);
    if n > THRESHOLD {
        insertion_sort(&mut v[..THRESHOLD], less);
        for i in THRESHOLD..n {
            unguarded_linear_insert(v, i, less);
        }
    } else {
        insertion_sort(v, less);
    }
}

fn floor_log2(n: usize) -> usize {
    (usize::BITS - 1 - n.leading_zeros()) as usize
}

fn introsort_loop<T: Copy>(v: &mut [T], mut depth: usize, less: &impl Fn(&T, &T) -> bool) {
    let mut last = v.len();
    while last > THRESHOLD {
        if depth == 0 {
            heap_sort(&mut v[..last], less);
            return;
        }
        depth -= 1;
        let cut = partition_pivot(&mut v[..last], less);
        introsort_loop(&mut v[cut..last], depth, less);
        last = cut;
    }
}

/// Moves the median of v[1], v[mid], v[last-1] to v[0] and partitions v[1..] around it.
fn partition_pivot<T: Copy>(v: &mut [T], less: &impl Fn(&T, &T) -> bool) -> usize {
    let (last, mid) = (v.len(), v.len() / 2);
    move_median_to_first(v, 1, mid, last - 1, less);
    // Unguarded partition of [1, last) around v[0].
    let (mut first, mut last) = (1, last);
    loop {
        while less(&v[first], &v[0]) {
            first += 1;
        }
        last -= 1;
        while less(&v[0], &v[last]) {
            last -= 1;
        }
        if first >= last {
            return first;
        }
        v.swap(first, last);
        first += 1;
    }
}

fn move_median_to_first<T: Copy>(
    v: &mut [T],
    a: usize,
    b: usize,
    c: usize,
    less: &impl Fn(&T, &T) -> bool,
) {
    let pick = if less(&v[a], &v[b]) {
        if less(&v[b], &v[c]) {
            b
        } else if less(&v[a], &v[c]) {
            c
        } else {
            a
        }
    } else if less(&v[a], &v[c]) {
        a
    } else if less(&v[b], &v[c]) {
        c
    } else {
        b
    };
    v.swap(0, pick);
}

fn insertion_sort<T: Copy>(v: &mut [T], less: &impl Fn(&T, &T) -> bool) {
    for i in 1..v.len() {
        if less(&v[i], &v[0]) {
            let x = v[i];
            v.copy_within(0..i, 1);
            v[0] = x;
        } else {
            unguarded_linear_insert(v, i, less);
        }
    }
}

/// Moves v[i] left past every element it is less than (some element before it is not).
fn unguarded_linear_insert<T: Copy>(v: &mut [T], mut i: usize, less: &impl Fn(&T, &T) -> bool) {
    let x = v[i];
    while less(&x, &v[i - 1]) {
        v[i] = v[i - 1];
        i -= 1;
    }
    v[i] = x;
}

/// `std::__partial_sort(first, last, last)`: make a heap of everything, then pop it.
fn heap_sort<T: Copy>(v: &mut [T], less: &impl Fn(&T, &T) -> bool) {
    let len = v.len();
    if len >= 2 {
        let mut parent = (len - 2) / 2;
        loop {
            let x = v[parent];
            adjust_heap(v, parent, len, x, less);
            if parent == 0 {
                break;
            }
            parent -= 1;
        }
    }
    let mut last = len;
    while last > 1 {
        last -= 1;
        let x = v[last];
        v[last] = v[0];
        adjust_heap(v, 0, last, x, less);
    }
}

/// libstdc++'s `push_heap` after `push_back`: `x` joins the heap `v` (a max-heap under
/// `less`), moved up from the end.
pub fn push_heap<T: Copy>(v: &mut Vec<T>, x: T, less: &impl Fn(&T, &T) -> bool) {
    v.push(x);
    let hole = v.len() - 1;
    sift_up(v, hole, 0, x, less);
}

/// libstdc++'s `pop_heap` then `pop_back`: the top of the heap `v` leaves, and its last
/// element is sifted in from the top (`__adjust_heap`). Nothing happens to an empty heap.
pub fn pop_heap<T: Copy>(v: &mut Vec<T>, less: &impl Fn(&T, &T) -> bool) {
    let Some(x) = v.pop() else {
        return;
    };
    let len = v.len();
    if len > 0 {
        adjust_heap(v, 0, len, x, less);
    }
}

/// libstdc++'s `__adjust_heap`: sift the hole at `hole` down to a leaf, then push `x` up.
fn adjust_heap<T: Copy>(
    v: &mut [T],
    mut hole: usize,
    len: usize,
    x: T,
    less: &impl Fn(&T, &T) -> bool,
) {
    let top = hole;
    let mut child = hole;
    while child < (len - 1) / 2 {
        child = 2 * (child + 1);
        if less(&v[child], &v[child - 1]) {
            child -= 1;
        }
        v[hole] = v[child];
        hole = child;
    }
    if len & 1 == 0 && child == (len - 2) / 2 {
        child = 2 * (child + 1);
        v[hole] = v[child - 1];
        hole = child - 1;
    }
    sift_up(v, hole, top, x, less);
}

/// libstdc++'s `__push_heap`: moves the hole at `hole` up while its parent is `less` than
/// `x` (not above `top`), then puts `x` there.
fn sift_up<T: Copy>(
    v: &mut [T],
    mut hole: usize,
    top: usize,
    x: T,
    less: &impl Fn(&T, &T) -> bool,
) {
    while hole > top {
        let parent = (hole - 1) / 2;
        if !less(&v[parent], &x) {
            break;
        }
        v[hole] = v[parent];
        hole = parent;
    }
    v[hole] = x;
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Both the whole sort and its heap-sort fallback (taken only past a recursion depth
        /// that random data rarely reaches) sort.
        #[test]
        fn sorts(v in proptest::collection::vec(0u8..8, 0..300)) {
            let mut want = v.clone();
            want.sort();
            let mut a = v.clone();
            sort_by(&mut a, &|a, b| a < b);
            prop_assert_eq!(&a, &want);
            let mut h = v.clone();
            heap_sort(&mut h, &|a, b| a < b);
            prop_assert_eq!(h, want.clone());
            // The heap: pushed one by one, popped largest first.
            let mut heap = Vec::new();
            for x in &v {
                push_heap(&mut heap, *x, &|a, b| a < b);
            }
            let mut popped = Vec::new();
            while let Some(&top) = heap.first() {
                popped.push(top);
                pop_heap(&mut heap, &|a, b| a < b);
            }
            popped.reverse();
            prop_assert_eq!(popped, want);
        }
    }

    #[test]
    fn short_runs_are_stable() {
        // Up to 16 elements libstdc++ only runs the insertion sort, which is stable.
        let mut v: Vec<(u8, u8)> = (0..16).map(|i| (i % 3, i)).collect();
        sort_by(&mut v, &|a, b| a.0 < b.0);
        assert!(v.windows(2).all(|w| w[0].0 < w[1].0 || w[0].1 < w[1].1));
    }
}
