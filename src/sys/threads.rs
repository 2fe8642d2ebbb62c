//! Worker threads that the system may refuse to start, and parallel steps that run on them.
//!
//! **Pools.** [`Workers::start`] builds a rayon pool fallibly: when the system refuses
//! threads (a pids cgroup, `ulimit -u`, an address-space limit too small for another
//! stack), it builds one with half as many, and so on; when not even two threads start, the
//! work runs on the calling thread alone. Each step down is a warning naming the cause. One
//! thread is always enough, and `-j 1` starts none.
//!
//! **Parallel steps.** [`join`], [`map`], [`for_each_mut`] and [`sort_unstable`] run in
//! parallel on the pool of the calling thread when it is a worker of one (inside
//! [`Workers::install`]), and one after the other on the calling thread otherwise. rayon's
//! global pool, whose creation panics when its threads cannot start, is never used: rayon
//! is named nowhere else in the crate (`tests/integration/architecture.rs` checks it).
//!
//! **Thread counts.** `0` asks for the default: `RAYON_NUM_THREADS` if it is set to a
//! positive number, else one per core. Every count is capped at [`MAX_THREADS_PER_CORE`]
//! per core: more threads cannot make the work faster, and each costs a stack and, in an
//! LLVM merge, a window of input bytes in memory.

use std::io;
#[cfg(feature = "parallel")]
use std::sync::Mutex;

#[cfg(feature = "parallel")]
use rayon::prelude::*;

use crate::error::Warning;

/// The most worker threads started per core (as [`cores`] counts them).
pub const MAX_THREADS_PER_CORE: usize = 4;

/// The environment variable that sets the default thread count (rayon's own).
pub const THREADS_ENV: &str = "RAYON_NUM_THREADS";

/// The cores this process may run on (its CPU affinity and cgroup quota), at least 1.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// The number of threads for a request of `requested` (`0`: the default, see the module
/// documentation), capped at [`MAX_THREADS_PER_CORE`] per core, with a warning if capped.
pub fn resolve(requested: usize) -> (usize, Option<Warning>) {
    let from_env = || {
        std::env::var(THREADS_ENV)
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|&n| n > 0)
    };
    let (wanted, source) = match requested {
        0 => match from_env() {
            Some(n) => (n, format!(" (by {THREADS_ENV})")),
            None => (cores(), String::new()),
        },
        n => (n, String::new()),
    };
    let cap = cores().saturating_mul(MAX_THREADS_PER_CORE);
    if wanted <= cap {
        return (wanted, None);
    }
    let warning = Warning::new(format!(
        "{wanted} worker threads asked for{source}; using {cap} ({MAX_THREADS_PER_CORE} per \
         core, {} cores available): more cannot make the work faster",
        cores()
    ));
    (cap, Some(warning))
}

/// What a refusal to start a thread means, for a warning: the system's error and its
/// likely causes.
pub fn spawn_failure(e: &io::Error) -> String {
    match e.raw_os_error() {
        // glibc reports a stack it cannot map as EAGAIN too.
        Some(libc::EAGAIN) => format!(
            "{e}; the system limits the threads or processes of this user or group (ulimit \
             -u, a pids cgroup, kernel.threads-max) or the memory for their stacks (ulimit -v)"
        ),
        Some(libc::ENOMEM) => format!("{e}; no memory for another thread's stack (ulimit -v)"),
        _ => e.to_string(),
    }
}

/// A pool of worker threads, or none: then the work runs on the calling thread.
#[derive(Debug)]
pub struct Workers {
    #[cfg(feature = "parallel")]
    pool: Option<rayon::ThreadPool>,
    threads: usize,
}

impl Workers {
    /// Starts the worker threads for a request of `requested` threads (see [`resolve`]):
    /// as many as the system allows of them, halving the count after each refusal, or none
    /// below two (the calling thread then does the work). Never fails; each cap and step
    /// down is a warning. Built without the `parallel` feature, the calling thread works
    /// alone, whatever `requested` is (the results do not depend on the thread count).
    #[cfg(not(feature = "parallel"))]
    pub fn start(requested: usize) -> (Workers, Vec<Warning>) {
        let _ = requested;
        (Workers::calling_thread(), Vec::new())
    }

    /// Starts the worker threads for a request of `requested` threads (see [`resolve`]):
    /// as many as the system allows of them, halving the count after each refusal, or none
    /// below two (the calling thread then does the work). Never fails; each cap and step
    /// down is a warning.
    #[cfg(feature = "parallel")]
    pub fn start(requested: usize) -> (Workers, Vec<Warning>) {
        let (wanted, capped) = resolve(requested);
        let mut warnings: Vec<Warning> = capped.into_iter().collect();
        let mut n = wanted;
        let mut refusal: Option<io::Error> = None;
        while n >= 2 {
            match build_pool(n) {
                Ok(pool) => {
                    if let Some(e) = &refusal {
                        warnings.push(Warning::new(format!(
                            "could not start {wanted} worker threads, using {n}: {}",
                            spawn_failure(e)
                        )));
                    }
                    return (
                        Workers {
                            pool: Some(pool),
                            threads: n,
                        },
                        warnings,
                    );
                }
                Err(e) => {
                    refusal.get_or_insert(e);
                    n /= 2;
                }
            }
        }
        if let Some(e) = &refusal {
            warnings.push(Warning::new(format!(
                "could not start worker threads, working on one thread: {}",
                spawn_failure(e)
            )));
        }
        (Workers::calling_thread(), warnings)
    }

    /// No pool: the work runs on the calling thread.
    pub fn calling_thread() -> Workers {
        Workers {
            #[cfg(feature = "parallel")]
            pool: None,
            threads: 1,
        }
    }

    /// The number of threads working: the pool's, or 1.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Runs `op` on the pool (its parallel steps spread over the pool's threads), or on
    /// the calling thread if there is none.
    pub fn install<R: Send>(&self, op: impl FnOnce() -> R + Send) -> R {
        #[cfg(feature = "parallel")]
        if let Some(pool) = &self.pool {
            return pool.install(op);
        }
        op()
    }
}

/// A pool of `n` threads, or the error of the first thread that did not start (the threads
/// started before it are stopped).
#[cfg(feature = "parallel")]
fn build_pool(n: usize) -> Result<rayon::ThreadPool, io::Error> {
    let refused: Mutex<Option<io::Error>> = Mutex::new(None);
    let built = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .spawn_handler(|thread| {
            let mut b = std::thread::Builder::new();
            if let Some(name) = thread.name() {
                b = b.name(name.to_owned());
            }
            if let Some(size) = thread.stack_size() {
                b = b.stack_size(size);
            }
            match b.spawn(|| thread.run()) {
                Ok(_) => Ok(()),
                Err(e) => {
                    let kind = e.kind();
                    if let Ok(mut r) = refused.lock() {
                        r.get_or_insert(e);
                    }
                    Err(io::Error::from(kind))
                }
            }
        })
        .build();
    built.map_err(|e| {
        refused
            .into_inner()
            .ok()
            .flatten()
            .unwrap_or_else(|| io::Error::other(e.to_string()))
    })
}

/// True if the calling thread is a worker of a pool (parallel steps then use it).
pub fn in_pool() -> bool {
    #[cfg(feature = "parallel")]
    return rayon::current_thread_index().is_some();
    #[cfg(not(feature = "parallel"))]
    return false;
}

/// The number of threads of the calling thread's pool, or 1 outside a pool.
pub fn current() -> usize {
    #[cfg(feature = "parallel")]
    if in_pool() {
        return rayon::current_num_threads();
    }
    1
}

/// Runs `a` and `b`, in parallel inside a pool, one after the other outside.
pub fn join<RA: Send, RB: Send>(
    a: impl FnOnce() -> RA + Send,
    b: impl FnOnce() -> RB + Send,
) -> (RA, RB) {
    #[cfg(feature = "parallel")]
    if in_pool() {
        return rayon::join(a, b);
    }
    (a(), b())
}

/// `f(index, item)` for every item, in order of the items: in parallel inside a pool (at
/// least `min_len` items per task), one after the other outside.
pub fn map<T: Sync, R: Send>(
    items: &[T],
    min_len: usize,
    f: impl Fn(usize, &T) -> R + Sync + Send,
) -> Vec<R> {
    #[cfg(feature = "parallel")]
    if in_pool() {
        return items
            .par_iter()
            .with_min_len(min_len.max(1))
            .enumerate()
            .map(|(i, t)| f(i, t))
            .collect();
    }
    let _ = min_len;
    items.iter().enumerate().map(|(i, t)| f(i, t)).collect()
}

/// `f(index, item)` for every item, each item by one task inside a pool.
pub fn for_each_mut<T: Send>(items: &mut [T], f: impl Fn(usize, &mut T) + Sync + Send) {
    #[cfg(feature = "parallel")]
    if in_pool() {
        items.par_iter_mut().enumerate().for_each(|(i, t)| f(i, t));
        return;
    }
    items.iter_mut().enumerate().for_each(|(i, t)| f(i, t));
}

/// Sorts `v` (unstable), in parallel inside a pool.
pub fn sort_unstable<T: Ord + Send>(v: &mut [T]) {
    #[cfg(feature = "parallel")]
    if in_pool() {
        v.par_sort_unstable();
        return;
    }
    v.sort_unstable();
}

/// Sorts `v` (unstable) by `cmp`, in parallel inside a pool.
pub fn sort_unstable_by<T: Send>(v: &mut [T], cmp: impl Fn(&T, &T) -> std::cmp::Ordering + Sync) {
    #[cfg(feature = "parallel")]
    if in_pool() {
        v.par_sort_unstable_by(cmp);
        return;
    }
    v.sort_unstable_by(cmp);
}

/// Runs `helper(0)` … `helper(n - 1)` on threads of their own and, meanwhile, `main` on the
/// calling thread, given the number of helpers that started; returns what `main` and each
/// helper that ran gave (in order of the index), and the system's refusal to start a thread,
/// if it refused one. The helpers from the first refused one on never run: the work must be
/// shared so that any number of helpers, none included, gets all of it done (`main` can
/// tell from the number it is given).
pub fn scoped_workers<H: Send, M>(
    n: usize,
    helper: impl Fn(usize) -> H + Sync,
    main: impl FnOnce(usize) -> M,
) -> (M, Vec<H>, Option<io::Error>) {
    let helper = &helper;
    std::thread::scope(|scope| {
        let mut refused = None;
        let mut handles = Vec::new();
        for w in 0..n {
            match std::thread::Builder::new().spawn_scoped(scope, move || helper(w)) {
                Ok(h) => handles.push(h),
                Err(e) => {
                    refused = Some(e);
                    break;
                }
            }
        }
        let m = main(handles.len());
        let helped = handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect();
        (m, helped, refused)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_a_pool_steps_run_on_the_calling_thread() {
        assert!(!in_pool());
        assert_eq!(current(), 1);
        let me = std::thread::current().id();
        let ids = map(&[1, 2, 3], 1, |_, _| std::thread::current().id());
        assert!(ids.iter().all(|&id| id == me));
        let mut v = vec![3, 1, 2];
        sort_unstable(&mut v);
        assert_eq!(v, [1, 2, 3]);
        assert_eq!(join(|| 1, || 2), (1, 2));
    }

    #[test]
    #[cfg(feature = "parallel")]
    fn one_thread_starts_no_pool() {
        let (w, warnings) = Workers::start(1);
        assert!(w.pool.is_none() && warnings.is_empty());
        assert_eq!(w.install(current), 1);
    }

    #[test]
    #[cfg(feature = "parallel")]
    fn a_pool_runs_the_steps() {
        let (w, _) = Workers::start(2);
        assert_eq!(w.threads(), 2);
        assert_eq!(w.install(current), 2);
        assert_eq!(w.install(|| map(&[1, 2, 3], 1, |i, x| i + x)), [1, 3, 5]);
    }

    #[test]
    fn counts_are_capped() {
        let cap = cores() * MAX_THREADS_PER_CORE;
        assert_eq!(resolve(cap), (cap, None));
        let (n, w) = resolve(cap + 1);
        assert_eq!(n, cap);
        assert!(
            w.unwrap()
                .message
                .contains("more cannot make the work faster")
        );
    }

    #[test]
    fn scoped_workers_run_every_index() {
        let (m, out, refused) = scoped_workers(3, |w| w * 10, |started| started);
        assert!(refused.is_none());
        assert_eq!((m, out), (3, vec![0, 10, 20]));
    }
}
