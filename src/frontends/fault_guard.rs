//! Keeps a memory-mapped input that another process truncates from killing the process.
//!
//! Touching a page of a file mapping that lies wholly past the file's end raises `SIGBUS`,
//! whose default action ends the process. A build that merges a profile directory while an
//! instrumented process still rewrites its `.profraw` (the profile runtime truncates the file
//! and writes it again) hits exactly that. Mapping stays the way inputs are read because it
//! is cheaper than reading them (`read(2)` of the sqlite workload costs ~20 % more CPU than
//! the whole merge through the mapping; docs/performance.md), so faults are handled instead:
//!
//! * every input mapping is *registered* here: its address range goes into a fixed table of
//!   atomics ([`SLOTS`] slots; when the table is full, the caller reads the file instead);
//! * a `SIGBUS` handler, installed once, looks the faulting address up in the table. Inside a
//!   registered range it maps anonymous zero pages (read-only, `MAP_FIXED`) over the range
//!   from the faulting page to its end, marks the range as *faulted* and returns: the access
//!   is retried and reads zeros. Any other fault goes to the disposition that was in place
//!   before (Rust's own stack-overflow handler, a handler of the embedding program, or the
//!   default action, which ends the process as it would have without us);
//! * the owner of a range asks [`Registration::faulted`] after reading and reports the
//!   input as changed instead of using what it read.
//!
//! A program that installs its own `SIGBUS` handler after the first input was opened
//! replaces ours (unless it chains to it, as ours chains to the one before): the guard then
//! no longer applies, and a truncated input ends the process as it did before.
//!
//! The handler is async-signal-safe: it allocates nothing and takes no lock; it reads the
//! table with atomic loads (a sequence number per slot detects a slot being rewritten while it
//! is read) and calls only `mmap`, `sigaction` and `raise`.

// Without the handler, the table is written but never read.
#![cfg_attr(
    not(any(target_os = "linux", target_os = "android", target_os = "macos")),
    allow(dead_code)
)]

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering, fence};

/// Mappings that can be registered at once. A merge has at most a window of inputs mapped
/// (two per thread); beyond this, inputs are read instead of mapped.
pub const SLOTS: usize = 256;

/// One registered range. Written only by the thread that claimed it; read by the handler.
struct Slot {
    /// Claimed by a [`Registration`].
    used: AtomicBool,
    /// Odd while `start`/`end` are being written (a seqlock).
    seq: AtomicUsize,
    /// First byte of the range.
    start: AtomicUsize,
    /// One past the last byte of the range; `start == end` for no range.
    end: AtomicUsize,
    /// Set by the handler when it replaced pages of the range.
    faulted: AtomicBool,
}

impl Slot {
    const fn new() -> Slot {
        Slot {
            used: AtomicBool::new(false),
            seq: AtomicUsize::new(0),
            start: AtomicUsize::new(0),
            end: AtomicUsize::new(0),
            faulted: AtomicBool::new(false),
        }
    }

    /// Sets the range (only by the slot's owner).
    fn set(&self, start: usize, end: usize) {
        self.seq.fetch_add(1, Ordering::AcqRel);
        self.start.store(start, Ordering::Relaxed);
        self.end.store(end, Ordering::Relaxed);
        self.seq.fetch_add(1, Ordering::Release);
    }

    /// The range, if it could be read consistently and is set.
    fn range(&self) -> Option<(usize, usize)> {
        let s1 = self.seq.load(Ordering::Acquire);
        if s1 & 1 == 1 {
            return None;
        }
        let start = self.start.load(Ordering::Relaxed);
        let end = self.end.load(Ordering::Relaxed);
        fence(Ordering::Acquire);
        let s2 = self.seq.load(Ordering::Relaxed);
        (s1 == s2 && start < end).then_some((start, end))
    }
}

static TABLE: [Slot; SLOTS] = [const { Slot::new() }; SLOTS];

/// The page size, set before the handler is installed.
static PAGE: AtomicUsize = AtomicUsize::new(4096);

/// A registered mapping: dropping it unregisters the range. Drop it before unmapping.
#[derive(Debug)]
pub struct Registration {
    slot: usize,
}

impl Registration {
    /// True if the handler replaced pages of this range: the file shrank under the mapping
    /// while it was read, and part of what was read is zeros.
    pub fn faulted(&self) -> bool {
        TABLE
            .get(self.slot)
            .is_some_and(|s| s.faulted.load(Ordering::Acquire))
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        if let Some(s) = TABLE.get(self.slot) {
            s.set(0, 0);
            s.faulted.store(false, Ordering::Relaxed);
            s.used.store(false, Ordering::Release);
        }
    }
}

/// Registers the mapping of `len` bytes at `start`, installing the handler on first use.
/// `None` if the handler could not be installed or the table is full: the caller must not
/// rely on the mapping then.
pub fn register(start: *const u8, len: usize) -> Option<Registration> {
    if !installed() || len == 0 {
        return None;
    }
    let start = start as usize;
    let end = start.checked_add(len)?;
    for (i, s) in TABLE.iter().enumerate() {
        if s.used
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
        {
            s.faulted.store(false, Ordering::Relaxed);
            s.set(start, end);
            return Some(Registration { slot: i });
        }
    }
    None
}

/// Installs the handler once; true if it is in place.
fn installed() -> bool {
    static INSTALLED: OnceLock<bool> = OnceLock::new();
    *INSTALLED.get_or_init(install)
}

/// Where the handler is built: systems whose `siginfo_t` gives the faulting address and
/// that raise `SIGBUS` for a page past the end of a mapped file.
#[cfg(any(target_os = "linux", target_os = "android", target_os = "macos"))]
mod imp {
    use super::{PAGE, TABLE};
    use std::sync::OnceLock;
    use std::sync::atomic::Ordering;

    /// The disposition of `SIGBUS` before ours, for faults that are not ours.
    pub(super) static PREVIOUS: OnceLock<Previous> = OnceLock::new();

    /// A copy of the previous `sigaction`.
    pub(super) struct Previous(libc::sigaction);

    // SAFETY: a plain C struct of integers and function pointers, written once before the
    // handler is installed and only read afterwards.
    unsafe impl Sync for Previous {}
    unsafe impl Send for Previous {}

    pub(super) fn install() -> bool {
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        if page <= 0 || !(page as usize).is_power_of_two() {
            return false;
        }
        PAGE.store(page as usize, Ordering::Relaxed);
        // SAFETY: a zeroed sigaction is a valid value to be filled by sigaction(2), which
        // is given valid pointers. The handler is installed only after the previous
        // disposition has been stored, so the handler always finds it.
        unsafe {
            let mut prev: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut prev) != 0 {
                return false;
            }
            if PREVIOUS.set(Previous(prev)).is_err() {
                return false;
            }
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = on_sigbus as *const () as libc::sighandler_t;
            act.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK | libc::SA_RESTART;
            libc::sigemptyset(&mut act.sa_mask);
            libc::sigaction(libc::SIGBUS, &act, std::ptr::null_mut()) == 0
        }
    }

    /// The `SIGBUS` handler. Async-signal-safe: atomics, `mmap`, `sigaction`, `raise`.
    extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
        // SAFETY: the kernel passes a valid siginfo_t to an SA_SIGINFO handler.
        let (addr, code) = unsafe { ((*info).si_addr() as usize, (*info).si_code) };
        // Only a fault (a positive si_code) is ours; a SIGBUS sent by kill() is not.
        if code > 0 {
            let page = PAGE.load(Ordering::Relaxed);
            for s in &TABLE {
                let Some((start, end)) = s.range() else {
                    continue;
                };
                if addr < start || addr >= end {
                    continue;
                }
                let from = addr & !(page - 1);
                // SAFETY: [from, end) lies inside a registered read-only file mapping (the
                // first page may begin before `start` only if `start` is not page-aligned,
                // which a mapping's start always is), owned by a live Registration: nothing
                // else lives there. Replacing it with anonymous zero pages changes what the
                // borrowed bytes read, which the owner detects through `faulted`.
                let p = unsafe {
                    libc::mmap(
                        from as *mut libc::c_void,
                        end - from,
                        libc::PROT_READ,
                        libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                        -1,
                        0,
                    )
                };
                if p != libc::MAP_FAILED {
                    s.faulted.store(true, Ordering::Release);
                    return;
                }
                break;
            }
        }
        chain(sig, info, ctx);
    }

    /// Hands a fault that is not ours to the previous disposition: its handler if it had
    /// one, else the default action (the fault repeats when the handler returns, or the
    /// signal is raised again, and the process ends as it would have without us).
    fn chain(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
        if let Some(Previous(prev)) = PREVIOUS.get() {
            let h = prev.sa_sigaction;
            if h != libc::SIG_DFL && h != libc::SIG_IGN {
                if prev.sa_flags & libc::SA_SIGINFO != 0 {
                    // SAFETY: the previous handler was installed with SA_SIGINFO, so this
                    // is its signature; it gets the arguments we got.
                    let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                        unsafe { std::mem::transmute(h) };
                    f(sig, info, ctx);
                } else {
                    // SAFETY: as above, for a handler installed without SA_SIGINFO.
                    let f: extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(h) };
                    f(sig);
                }
                return;
            }
        }
        // SAFETY: sigaction and raise are async-signal-safe; a zeroed sigaction with
        // SIG_DFL (0) is the default disposition.
        unsafe {
            let mut dfl: libc::sigaction = std::mem::zeroed();
            dfl.sa_sigaction = libc::SIG_DFL;
            libc::sigemptyset(&mut dfl.sa_mask);
            libc::sigaction(sig, &dfl, std::ptr::null_mut());
            // A fault repeats on return; a signal sent by a process must be sent again.
            if (*info).si_code <= 0 {
                libc::raise(sig);
            }
        }
    }
}

#[cfg(any(target_os = "linux", target_os = "android", target_os = "macos"))]
fn install() -> bool {
    imp::install()
}

/// No fault handling elsewhere: inputs are read, not mapped.
#[cfg(not(any(target_os = "linux", target_os = "android", target_os = "macos")))]
fn install() -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(any(target_os = "linux", target_os = "android", target_os = "macos"))]
    #[test]
    fn registrations_take_and_free_slots() {
        let buf = [0u8; 64];
        let a = register(buf.as_ptr(), buf.len()).expect("registered");
        let b = register(buf.as_ptr(), 1).expect("registered");
        assert_ne!(a.slot, b.slot);
        assert!(!a.faulted());
        let freed = a.slot;
        drop(a);
        assert!(TABLE[freed].range().is_none());
        assert!(register(buf.as_ptr(), 0).is_none());
        drop(b);
    }
}
