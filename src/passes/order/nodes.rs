//! The nodes balanced partitioning orders: one per function of the traces, with its utility
//! nodes, as LLVM's `TemporalProfTraceTy::createBPFunctionNodes` builds them (LLVM 17–23).
//!
//! Each trace is cut into windows that double in length (timestamps 0, 1, 2–3, 4–7, …);
//! every window is a utility node, numbered across traces. A function gets the utility
//! nodes from the window of its first call in a trace to the trace's last window: functions
//! first called early share many. Utility nodes held by one function only, or by more than
//! half of them, are dropped. Nodes are ordered by their earliest call in any trace, then by
//! name hash: balanced partitioning starts from that order.

use std::collections::HashMap;
use std::hash::Hash;

use crate::error::{Error, ErrorKind, Result};
use crate::ir::TemporalTrace;
use crate::sys::alloc;

/// A function to place and its utility nodes (ascending).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionNode {
    /// The function's name hash.
    pub id: u64,
    /// Its utility nodes.
    pub utilities: Vec<u32>,
}

/// What is known of one function while the traces are read.
#[derive(Default)]
struct Seen {
    /// Earliest position in any trace.
    first_timestamp: usize,
    /// Utility nodes so far.
    utilities: Vec<u32>,
}

/// The nodes of `traces`, in the order balanced partitioning starts from. Memory the
/// system refuses (the maps and vectors grow with the traces) is an error naming it.
pub fn function_nodes(traces: &[TemporalTrace]) -> Result<Vec<FunctionNode>> {
    let mut seen: HashMap<u64, Seen> = HashMap::new();
    // LLVM counts utility nodes in an `uint32_t`.
    let mut max_un: u32 = 0;
    let mut first_un: HashMap<u64, u32> = HashMap::new();
    for trace in traces {
        let mut cutoff = 1usize;
        for (timestamp, &id) in trace.functions.iter().enumerate() {
            map_room(&mut seen, "functions of the temporal traces")?;
            let s = seen.entry(id).or_insert_with(|| Seen {
                first_timestamp: timestamp,
                utilities: Vec::new(),
            });
            s.first_timestamp = s.first_timestamp.min(timestamp);
            if timestamp >= cutoff {
                max_un = max_un.wrapping_add(1);
                cutoff = timestamp.saturating_mul(2);
            }
            map_room(&mut first_un, "functions of a temporal trace")?;
            first_un.entry(id).or_insert(max_un);
        }
        for (id, &first) in &first_un {
            if first > max_un {
                continue; // only after the count wrapped: LLVM's loop runs zero times too
            }
            map_room(&mut seen, "functions of the temporal traces")?;
            let s = seen.entry(*id).or_default();
            alloc::reserve(
                &mut s.utilities,
                (max_un - first) as usize + 1,
                "utility nodes",
            )?;
            s.utilities.extend(first..=max_un);
        }
        max_un = max_un.wrapping_add(1);
        first_un.clear();
    }
    remove_outliers(&mut seen)?;
    let mut keyed: Vec<(usize, u64, Vec<u32>)> =
        alloc::with_capacity(seen.len(), "function nodes")?;
    keyed.extend(
        seen.into_iter()
            .map(|(id, s)| (s.first_timestamp, id, s.utilities)),
    );
    keyed.sort_unstable_by_key(|&(t, id, _)| (t, id));
    let mut nodes = alloc::with_capacity(keyed.len(), "function nodes")?;
    nodes.extend(
        keyed
            .into_iter()
            .map(|(_, id, utilities)| FunctionNode { id, utilities }),
    );
    Ok(nodes)
}

/// Room in `map` for one more entry, or [`ErrorKind::OutOfMemory`] naming `what` (a map
/// that grows with the input must not abort the process when the system refuses memory).
pub(crate) fn map_room<K: Eq + Hash, V>(map: &mut HashMap<K, V>, what: &'static str) -> Result<()> {
    map.try_reserve(1).map_err(|_| {
        let entry = (std::mem::size_of::<K>() + std::mem::size_of::<V>()) as u64;
        Error::new(ErrorKind::OutOfMemory {
            what,
            bytes: (map.len() as u64 + 1).saturating_mul(2 * entry),
        })
    })
}

/// Drops utility nodes that only one function has or that more than half of the functions
/// have (LLVM's `RemoveOutlierUNs`, on by default).
fn remove_outliers(seen: &mut HashMap<u64, Seen>) -> Result<()> {
    let mut frequency: HashMap<u32, usize> = HashMap::new();
    for s in seen.values() {
        for &un in &s.utilities {
            map_room(&mut frequency, "utility node counts")?;
            *frequency.entry(un).or_default() += 1;
        }
    }
    let functions = seen.len();
    for s in seen.values_mut() {
        s.utilities.retain(|un| {
            let f = frequency.get(un).copied().unwrap_or(0);
            !(f <= 1 || 2 * f > functions)
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace(f: &[u64]) -> TemporalTrace {
        TemporalTrace {
            weight: 1,
            functions: f.to_vec(),
        }
    }

    fn utilities(nodes: &[FunctionNode], id: u64) -> Vec<u32> {
        nodes.iter().find(|n| n.id == id).unwrap().utilities.clone()
    }

    #[test]
    fn windows_double_and_outliers_go() {
        // LLVM's unit test of the same inputs: before outlier removal function 0 has utility
        // nodes {0,1,2,3}, 1 {1,2,3}, 2 {2,3,5}, 3 {2,3}, 4 {3,4,5}; nodes 2 and 3 are held
        // by more than half, 0 and 4 by one function: what remains is 1 (held by 0 and 1)
        // and 5 (held by 2 and 4).
        let nodes = function_nodes(&[trace(&[0, 1, 2, 3, 4]), trace(&[4, 2])]).unwrap();
        assert_eq!(utilities(&nodes, 0), vec![1]);
        assert_eq!(utilities(&nodes, 1), vec![1]);
        assert_eq!(utilities(&nodes, 2), vec![5]);
        assert_eq!(utilities(&nodes, 3), Vec::<u32>::new());
        assert_eq!(utilities(&nodes, 4), vec![5]);
        // Earliest call first (4 is first in the second trace), ties by hash.
        let ids: Vec<u64> = nodes.iter().map(|n| n.id).collect();
        assert_eq!(ids, vec![0, 4, 1, 2, 3]);
    }
}
