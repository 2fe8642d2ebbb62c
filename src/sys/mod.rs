//! What the system may refuse: threads ([`threads`]) and memory ([`alloc`]); and how the
//! system's C++ library orders things ([`libstdcxx`]), which LLVM's tools inherit.
//!
//! A process may be denied threads (a pids cgroup, `ulimit -u`, an address-space limit too
//! small for another stack) or memory (`ulimit -v`, a cgroup limit). Every other layer asks
//! through here, so that a refusal is an error or a warning naming its cause, never a panic
//! or an abort.

pub mod alloc;
pub mod libstdcxx;
pub mod mt19937;
pub mod threads;
