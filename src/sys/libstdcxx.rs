//! `std::sort` as GNU libstdc++ implements it (introsort: median-of-three quicksort down to
//! runs of 16, heap sort past a depth of 2·log2 n, then one insertion sort), its binary
//! heap (`std::push_heap`, `std::pop_heap`, under `std::priority_queue`), `std::nth_element`
//! (introselect) and `std::partition`, reproduced step by step so that equal elements, and
//! the elements either side of the n-th, end up in the same order.
//!
//! llvm-profdata 19's `order` splits each group of functions with `std::nth_element` and
//! regroups them with `std::partition`; the order within a group decides ties in the later
//! steps, so both must move elements exactly as libstdc++ does.
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
    make_heap(v, less);
    let mut last = v.len();
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

/// `std::nth_element(v.begin(), v.begin() + nth, v.end(), less)` as libstdc++ does it
/// (introselect: median-of-three partitions while more than 3 elements remain, a heap
/// select past a depth of 2·log2 n, then an insertion sort of the rest). Afterwards
/// `v[nth]` is the element a sort would put there, nothing before it is greater and nothing
/// after it is less. Nothing happens when `nth >= v.len()`.
pub fn nth_element_by<T: Copy>(v: &mut [T], nth: usize, less: &impl Fn(&T, &T) -> bool) {
    if v.is_empty() || nth >= v.len() {
        return;
    }
    let (mut first, mut last) = (0, v.len());
    let mut depth = 2 * floor_log2(v.len());
    while last - first > 3 {
        if depth == 0 {
            heap_select(&mut v[first..last], nth - first + 1, less);
            // Place the n-th element: the top of the heap of the smallest ones.
            v.swap(first, nth);
            return;
        }
        depth -= 1;
        let cut = first + partition_pivot(&mut v[first..last], less);
        if cut <= nth {
            first = cut;
        } else {
            last = cut;
        }
    }
    insertion_sort(&mut v[first..last], less);
}

/// libstdc++'s `__heap_select(first, first + middle, last)`: the `middle` smallest elements
/// as a heap in `v[..middle]`.
fn heap_select<T: Copy>(v: &mut [T], middle: usize, less: &impl Fn(&T, &T) -> bool) {
    make_heap(&mut v[..middle], less);
    for i in middle..v.len() {
        if less(&v[i], &v[0]) {
            // `__pop_heap(first, middle, i)`: v[i] takes the top's place in the heap.
            let x = v[i];
            v[i] = v[0];
            adjust_heap(v, 0, middle, x, less);
        }
    }
}

/// libstdc++'s `__make_heap`.
fn make_heap<T: Copy>(v: &mut [T], less: &impl Fn(&T, &T) -> bool) {
    let len = v.len();
    if len < 2 {
        return;
    }
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

/// `std::partition(v.begin(), v.end(), pred)` as libstdc++ does it for bidirectional
/// iterators: skip from the front while `pred` holds, from the back while it does not, swap
/// the two found, repeat. Returns the number of elements for which `pred` holds (they are
/// now first). Not stable.
pub fn partition<T>(v: &mut [T], pred: impl Fn(&T) -> bool) -> usize {
    let (mut first, mut last) = (0, v.len());
    loop {
        loop {
            if first == last {
                return first;
            }
            if pred(&v[first]) {
                first += 1;
            } else {
                break;
            }
        }
        last -= 1;
        loop {
            if first == last {
                return first;
            }
            if !pred(&v[last]) {
                last -= 1;
            } else {
                break;
            }
        }
        v.swap(first, last);
        first += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// nth_element puts the n-th smallest at n with nothing greater before and nothing
        /// less after; partition puts the elements that satisfy the predicate first.
        #[test]
        fn selects_and_partitions(v in proptest::collection::vec(0u16..500, 1..300), k in 0usize..300) {
            let nth = k % v.len();
            let mut want = v.clone();
            want.sort();
            let mut a = v.clone();
            nth_element_by(&mut a, nth, &|a, b| a < b);
            prop_assert_eq!(a[nth], want[nth]);
            prop_assert!(a[..nth].iter().all(|x| *x <= a[nth]));
            prop_assert!(a[nth..].iter().all(|x| *x >= a[nth]));
            let mut sorted = a.clone();
            sorted.sort();
            prop_assert_eq!(&sorted, &want);
            let mut p = v.clone();
            let mid = partition(&mut p, |x| x % 3 == 0);
            prop_assert!(p[..mid].iter().all(|x| x % 3 == 0));
            prop_assert!(p[mid..].iter().all(|x| x % 3 != 0));
            // Heap select, reached only past a depth that random data rarely reaches.
            let mut h = v.clone();
            heap_select(&mut h, nth + 1, &|a, b| a < b);
            h.swap(0, nth);
            prop_assert_eq!(h[nth], want[nth]);
        }
    }

    #[test]
    fn nth_element_moves_as_libstdcxx() {
        // Worked by hand from libstdc++'s introselect: 9 elements, nth = 5 (as a split of 9
        // nodes picks (9 + 1) / 2): one median-of-three partition, then an insertion sort.
        let mut v = [0, 1, 2, 3, 4, 5, 6, 7, 8];
        nth_element_by(&mut v, 5, &|a: &i32, b: &i32| a < b);
        assert_eq!(v, [4, 1, 2, 3, 0, 5, 6, 7, 8]);
        let mut p = [1, 2, 3, 4, 5, 6];
        assert_eq!(partition(&mut p, |x| x % 2 == 0), 3);
        assert_eq!(p, [6, 2, 4, 3, 5, 1]);
    }

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
