//! Function order from temporal traces, as `llvm-profdata order` computes it.
//!
//! Temporal profiles record, per run, the functions in the order of their first call. The
//! order pass turns the traces of a profile into a function order for the linker that keeps
//! functions needed together on the same pages: each function becomes a node whose utility
//! nodes stand for the time windows of the traces it was first called in ([`nodes`]), and
//! balanced partitioning ([`balanced`]) bisects the nodes recursively so that functions
//! sharing windows end up close. The result is llvm-profdata's to the byte: the same float
//! gains, the same per-split Mersenne Twister and the same libstdc++ moves.
//!
//! The pass sees only the traces (IR); the driver reads and merges the inputs and a
//! back-end prints the order.

pub mod balanced;
pub mod nodes;

use crate::error::{Error, ErrorKind, Result};
use crate::ir::TemporalTrace;

pub use crate::ir::order::FunctionOrder;

pub use balanced::SplitRule;

/// What to compute.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OrderOptions {
    /// Keep the last this many traces aside to measure the order (`--num-test-traces`).
    pub test_traces: usize,
    /// How each bisection splits its nodes (follows the LLVM release).
    pub split: SplitRule,
}

impl OrderOptions {
    /// The options of LLVM release `llvm` (major version), with no test traces.
    pub fn for_llvm(llvm: u32) -> Self {
        OrderOptions {
            test_traces: 0,
            split: SplitRule::for_llvm(llvm),
        }
    }
}

/// Orders the functions of `traces` (a profile's temporal traces, in profile order).
///
/// Errors: `opts.test_traces` not smaller than the number of traces ([`ErrorKind::Usage`],
/// worded as llvm-profdata words it); memory the system refuses.
pub fn order(traces: &[TemporalTrace], opts: &OrderOptions) -> Result<FunctionOrder> {
    let n = opts.test_traces;
    if n != 0 && n >= traces.len() {
        return Err(Error::new(ErrorKind::Usage(format!(
            "--num-test-traces must be smaller than the total number of traces: expected: < {}, actual: {n}",
            traces.len()
        ))));
    }
    let (training, test) = traces.split_at(traces.len() - n);
    let nodes = nodes::function_nodes(training)?;
    let functions = balanced::partition(nodes, opts.split)?;
    let page_fault_area = if test.is_empty() {
        None
    } else {
        Some(page_fault_area(&functions, test)?)
    };
    Ok(FunctionOrder {
        functions,
        page_fault_area,
    })
}

/// Functions per page in the page-fault estimate (symbol sizes are unknown).
const FUNCTIONS_PER_PAGE: usize = 32;

/// The area under the page-fault curve of `test` traces with functions laid out in
/// `order`: per trace, after each function of the order, the number of distinct pages
/// touched so far, added up (in 32 bits, wrapping, as llvm-profdata's `unsigned`).
fn page_fault_area(order: &[u64], test: &[TemporalTrace]) -> Result<u32> {
    let mut page: std::collections::HashMap<u64, usize> = std::collections::HashMap::new();
    page.try_reserve(order.len())
        .map_err(|_| out_of_memory("the page of each function", order.len(), 16))?;
    page.extend(
        order
            .iter()
            .enumerate()
            .map(|(i, &id)| (id, i / FUNCTIONS_PER_PAGE)),
    );
    let pages = order.len().div_ceil(FUNCTIONS_PER_PAGE);
    let mut area = 0u32;
    let mut touched = std::collections::HashSet::new();
    touched
        .try_reserve(pages)
        .map_err(|_| out_of_memory("the pages a test trace touches", pages, 8))?;
    for trace in test {
        for id in &trace.functions {
            if let Some(&p) = page.get(id) {
                touched.insert(p);
                area = area.wrapping_add(touched.len() as u32);
            }
        }
        touched.clear();
    }
    Ok(area)
}

/// The error for `n` entries of `entry` bytes that the system refused for `what`.
fn out_of_memory(what: &'static str, n: usize, entry: u64) -> Error {
    Error::new(ErrorKind::OutOfMemory {
        what,
        bytes: (n as u64).saturating_mul(entry),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any traces (repeated functions, empty traces, any test-trace count): an order of
        /// each function of the training traces exactly once, or the usage error; never a
        /// panic. Both releases' splits.
        #[test]
        fn any_traces_give_a_permutation(
            traces in proptest::collection::vec(proptest::collection::vec(0u64..60, 0..80), 0..8),
            test in 0usize..4,
            llvm in prop_oneof![Just(19u32), Just(22u32)],
        ) {
            let traces: Vec<TemporalTrace> = traces.into_iter().map(|f| trace(&f)).collect();
            let opts = OrderOptions { test_traces: test, ..OrderOptions::for_llvm(llvm) };
            match order(&traces, &opts) {
                Ok(o) => {
                    let training = &traces[..traces.len() - test];
                    let mut want: Vec<u64> =
                        training.iter().flat_map(|t| t.functions.iter().copied()).collect();
                    want.sort_unstable();
                    want.dedup();
                    let mut got = o.functions.clone();
                    got.sort_unstable();
                    prop_assert_eq!(got, want);
                    prop_assert_eq!(o.page_fault_area.is_some(), test > 0);
                }
                Err(_) => prop_assert!(test > 0 && test >= traces.len()),
            }
        }
    }

    fn trace(f: &[u64]) -> TemporalTrace {
        TemporalTrace {
            weight: 1,
            functions: f.to_vec(),
        }
    }

    #[test]
    fn test_traces_must_leave_training_traces() {
        let t = [trace(&[1, 2]), trace(&[2, 1])];
        let mut o = OrderOptions::for_llvm(22);
        o.test_traces = 2;
        let e = order(&t, &o).unwrap_err();
        assert!(e.to_string().contains("expected: < 2, actual: 2"), "{e}");
        o.test_traces = 1;
        let r = order(&t, &o).unwrap();
        assert_eq!(r.functions.len(), 2);
        // Both functions on page 0: 1 + 1.
        assert_eq!(r.page_fault_area, Some(2));
    }

    #[test]
    fn no_traces_no_functions() {
        let r = order(&[], &OrderOptions::for_llvm(19)).unwrap();
        assert!(r.functions.is_empty());
        assert_eq!(r.page_fault_area, None);
    }
}
