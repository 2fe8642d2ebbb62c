//! Balanced partitioning (LLVM's `llvm/lib/Support/BalancedPartitioning.cpp`, default
//! configuration), reproduced step for step so that the order is llvm-profdata's to the byte.
//!
//! The nodes are bisected recursively, at most [`SPLIT_DEPTH`] levels deep (the recursion is
//! bounded by that, never by the input). Each bisection splits its nodes in two halves by
//! input order, then runs up to [`ITERATIONS_PER_SPLIT`] rounds that swap the nodes with the
//! largest gains between the halves (a move is skipped with probability
//! [`SKIP_PROBABILITY`], drawn from a `std::mt19937` seeded with the bisection's bucket
//! number). The gains are `f32` sums of a log-gap cost, as LLVM computes them; the order of
//! nodes within a bisection decides ties, so the libstdc++ moves of `std::nth_element` (LLVM
//! 19) and `std::partition` are reproduced ([`crate::sys::libstdcxx`]).
//!
//! LLVM runs the two halves of the first levels on a thread pool; each works on its own
//! nodes with its own generator, so the result does not depend on it, and we run them one
//! after the other.

use std::collections::HashMap;

use crate::sys::mt19937::Mt;

use super::nodes::FunctionNode;
use crate::error::Result;
use crate::sys::{alloc, libstdcxx};

/// Depth of the recursive bisection (LLVM's `SplitDepth`).
pub const SPLIT_DEPTH: u32 = 18;
/// Most improvement rounds per bisection (`IterationsPerSplit`).
pub const ITERATIONS_PER_SPLIT: u32 = 40;
/// Probability that a move is skipped, to escape local optima (`SkipProbability`).
pub const SKIP_PROBABILITY: f32 = 0.1;
/// log2 of integers below this is taken from a table of `f32`s (`LOG_CACHE_SIZE`).
const LOG_CACHE_SIZE: u32 = 16384;

/// How a bisection splits its nodes in two before improving the split.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitRule {
    /// `std::nth_element` by input order (LLVM 17 to 19): the halves are right, the order
    /// within them is libstdc++'s introselect's.
    NthElement,
    /// A sort by input order (LLVM 22 and 23).
    Sort,
}

impl SplitRule {
    /// The rule of LLVM release `llvm`: up to 19 `nth_element`, later a sort. (22 and 23 are
    /// checked against their sources and binaries; 20 and 21 are assumed to sort.)
    pub fn for_llvm(llvm: u32) -> Self {
        if llvm <= 19 {
            SplitRule::NthElement
        } else {
            SplitRule::Sort
        }
    }
}

/// A node while it is partitioned.
struct Node {
    id: u64,
    utilities: Vec<u32>,
    bucket: u32,
    input_order: usize,
}

/// Per utility node of one bisection: how many of its functions are on each side, and the
/// cached gains of moving one of them across.
#[derive(Clone, Copy, Default)]
struct Signature {
    left: u32,
    right: u32,
    gain_lr: f32,
    gain_rl: f32,
    valid: bool,
}

/// The partitioner: the nodes, and the log2 table.
struct Partitioner {
    nodes: Vec<Node>,
    log2_cache: Vec<f32>,
    rule: SplitRule,
}

/// Orders `nodes` (in the order [`super::nodes::function_nodes`] gives) and returns their
/// ids, first to place first. Memory the system refuses is an error naming it; the memory
/// used grows with the number of nodes and utility nodes, never with their values.
pub fn partition(nodes: Vec<FunctionNode>, rule: SplitRule) -> Result<Vec<u64>> {
    let mut log2_cache = alloc::with_capacity(LOG_CACHE_SIZE as usize, "log2 table")?;
    log2_cache.push(0.0f32);
    log2_cache.extend((1..LOG_CACHE_SIZE).map(|i| f64::from(i).log2() as f32));
    let mut dense: HashMap<u32, u32> = HashMap::new();
    let mut partitioned = alloc::with_capacity(nodes.len(), "function nodes")?;
    for (i, n) in nodes.into_iter().enumerate() {
        partitioned.push(Node {
            id: n.id,
            utilities: densely(n.utilities, &mut dense)?,
            bucket: 0,
            input_order: i,
        });
    }
    let mut p = Partitioner {
        nodes: partitioned,
        log2_cache,
        rule,
    };
    let mut slots = alloc::with_capacity(p.nodes.len(), "function nodes")?;
    slots.extend(0..p.nodes.len());
    p.bisect(&mut slots, 0, 1, 0)?;
    // LLVM's final stable sort by bucket; buckets are distinct, so any sort gives this.
    slots.sort_by_key(|&s| p.nodes[s].bucket);
    let mut ids = alloc::with_capacity(slots.len(), "the function order")?;
    ids.extend(slots.into_iter().map(|s| p.nodes[s].id));
    Ok(ids)
}

/// `utilities` renumbered by `dense` (numbers from 0 in order of first appearance, shared
/// across nodes), so that the per-bisection counts are indexed by at most the number of
/// distinct utility nodes whatever numbers a caller used. Each bisection renumbers by first
/// appearance anyway, so the order is the same.
fn densely(mut utilities: Vec<u32>, dense: &mut HashMap<u32, u32>) -> Result<Vec<u32>> {
    for un in &mut utilities {
        super::nodes::map_room(dense, "utility nodes")?;
        let next = dense.len() as u32;
        *un = *dense.entry(*un).or_insert(next);
    }
    Ok(utilities)
}

impl Partitioner {
    /// Bisects the nodes of `slots` (indices into `nodes`, in LLVM's vector order); their
    /// final buckets are `offset..offset + slots.len()`. Recursion depth ≤ [`SPLIT_DEPTH`].
    fn bisect(
        &mut self,
        slots: &mut [usize],
        depth: u32,
        root_bucket: u32,
        offset: u32,
    ) -> Result<()> {
        if slots.len() <= 1 || depth >= SPLIT_DEPTH {
            // The lowest level: input order.
            slots.sort_unstable_by_key(|&s| self.nodes[s].input_order);
            for (i, &s) in slots.iter().enumerate() {
                self.nodes[s].bucket = offset.wrapping_add(i as u32);
            }
            return Ok(());
        }
        let mut rng = Mt::new(root_bucket);
        let left = root_bucket.wrapping_mul(2);
        let right = left.wrapping_add(1);
        self.split(slots, left);
        self.run_iterations(slots, left, right, &mut rng)?;
        let nodes = &self.nodes;
        let mid = libstdcxx::partition(slots, |&s| nodes[s].bucket == left);
        let (l, r) = slots.split_at_mut(mid);
        self.bisect(l, depth + 1, left, offset)?;
        self.bisect(r, depth + 1, right, offset.wrapping_add(mid as u32))
    }

    /// The first half by input order to `start`, the rest to `start + 1`.
    fn split(&mut self, slots: &mut [usize], start: u32) {
        let mid = slots.len().div_ceil(2);
        let nodes = &self.nodes;
        match self.rule {
            SplitRule::NthElement => libstdcxx::nth_element_by(slots, mid, &|&a, &b| {
                nodes[a].input_order < nodes[b].input_order
            }),
            SplitRule::Sort => slots.sort_unstable_by_key(|&s| nodes[s].input_order),
        }
        for (i, &s) in slots.iter().enumerate() {
            self.nodes[s].bucket = if i < mid { start } else { start + 1 };
        }
    }

    /// Drops utility nodes that one or all of the nodes have, renumbers the rest densely,
    /// counts them per side and runs the improvement rounds.
    fn run_iterations(
        &mut self,
        slots: &[usize],
        left: u32,
        right: u32,
        rng: &mut Mt,
    ) -> Result<()> {
        let n = slots.len();
        // Utility nodes are small numbers (dense after the first bisection): count them in
        // a vector indexed by number rather than LLVM's hash map; the result is the same.
        let top = slots
            .iter()
            .flat_map(|&s| self.nodes[s].utilities.iter().copied())
            .max()
            .map_or(0, |m| m as usize + 1);
        let mut count = alloc::filled(top, 0u32, "utility node counts")?;
        for &s in slots {
            for &un in &self.nodes[s].utilities {
                count[un as usize] += 1;
            }
        }
        for &s in slots {
            self.nodes[s].utilities.retain(|&un| {
                let c = count[un as usize] as usize;
                !(c == 1 || c == n)
            });
        }
        // Renumber in order of first appearance, as LLVM does.
        let mut renumbered = count;
        renumbered.fill(u32::MAX);
        let mut used = 0u32;
        for &s in slots {
            for un in &mut self.nodes[s].utilities {
                let slot = &mut renumbered[*un as usize];
                if *slot == u32::MAX {
                    *slot = used;
                    used += 1;
                }
                *un = *slot;
            }
        }
        let mut signatures = alloc::filled(used as usize, Signature::default(), "utility nodes")?;
        for &s in slots {
            let on_left = self.nodes[s].bucket == left;
            for &un in &self.nodes[s].utilities {
                let sig = &mut signatures[un as usize];
                if on_left {
                    sig.left += 1;
                } else {
                    sig.right += 1;
                }
            }
        }
        for _ in 0..ITERATIONS_PER_SPLIT {
            if self.run_iteration(slots, left, right, &mut signatures, rng)? == 0 {
                break;
            }
        }
        Ok(())
    }

    /// One round: the gains of moving each node across, sorted per side (largest first),
    /// paired, and each pair swapped while the pair's total gain is positive. Returns the
    /// number of nodes moved.
    fn run_iteration(
        &mut self,
        slots: &[usize],
        left: u32,
        right: u32,
        signatures: &mut [Signature],
        rng: &mut Mt,
    ) -> Result<u32> {
        for sig in signatures.iter_mut().filter(|s| !s.valid) {
            let (l, r) = (sig.left, sig.right);
            let cost = self.log_cost(l, r);
            sig.gain_lr = 0.0;
            sig.gain_rl = 0.0;
            if l > 0 {
                sig.gain_lr = cost - self.log_cost(l - 1, r + 1);
            }
            if r > 0 {
                sig.gain_rl = cost - self.log_cost(l + 1, r - 1);
            }
            sig.valid = true;
        }
        let mut gains: Vec<(f32, usize)> = alloc::with_capacity(slots.len(), "move gains")?;
        gains.extend(slots.iter().map(|&s| {
            let n = &self.nodes[s];
            let from_left = n.bucket == left;
            let mut gain = 0.0f32;
            for &un in &n.utilities {
                let sig = &signatures[un as usize];
                gain += if from_left { sig.gain_lr } else { sig.gain_rl };
            }
            (gain, s)
        }));
        let nodes = &self.nodes;
        let left_end = libstdcxx::partition(&mut gains, |g| nodes[g.1].bucket == left);
        let larger = |a: &(f32, usize), b: &(f32, usize)| {
            b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal)
        };
        let (lg, rg) = gains.split_at_mut(left_end);
        lg.sort_by(larger);
        rg.sort_by(larger);
        let mut moved = 0;
        for (&(lgain, ln), &(rgain, rn)) in lg.iter().zip(rg.iter()) {
            if lgain + rgain <= 0.0 {
                break;
            }
            for node in [ln, rn] {
                if self.move_node(node, left, right, signatures, rng) {
                    moved += 1;
                }
            }
        }
        Ok(moved)
    }

    /// Moves node `s` to the other side unless the draw says skip; true if it moved.
    fn move_node(
        &mut self,
        s: usize,
        left: u32,
        right: u32,
        signatures: &mut [Signature],
        rng: &mut Mt,
    ) -> bool {
        if uniform_f32(rng) <= SKIP_PROBABILITY {
            return false;
        }
        let n = &mut self.nodes[s];
        let from_left = n.bucket == left;
        n.bucket = if from_left { right } else { left };
        for &un in &n.utilities {
            let sig = &mut signatures[un as usize];
            if from_left {
                sig.left -= 1;
                sig.right += 1;
            } else {
                sig.left += 1;
                sig.right -= 1;
            }
            sig.valid = false;
        }
        true
    }

    /// The log-gap cost of a utility node with `x` nodes on the left and `y` on the right.
    fn log_cost(&self, x: u32, y: u32) -> f32 {
        -((x as f32) * self.log2(x.wrapping_add(1)) + (y as f32) * self.log2(y.wrapping_add(1)))
    }

    /// log2 of `i` as an `f32` (from the table, or computed in `f64` and narrowed).
    fn log2(&self, i: u32) -> f32 {
        match self.log2_cache.get(i as usize) {
            Some(&v) => v,
            None => f64::from(i).log2() as f32,
        }
    }
}

/// `std::uniform_real_distribution<float>(0, 1)(rng)` as libstdc++ computes it from one
/// 32-bit draw: `generate_canonical<float, 24>` divides the draw (as `f32`) by 2^32, and a
/// result that rounds to 1 becomes the largest `f32` below 1.
fn uniform_f32(rng: &mut Mt) -> f32 {
    let r = rng.next_u32() as f32 / 4_294_967_296.0f32;
    if r >= 1.0 { 1.0f32.next_down() } else { r }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_floats_match_libstdcxx() {
        // std::mt19937(1): first outputs 1791095845, 4282876139; as libstdc++'s canonical
        // float: 0.41702199, 0.99718481.
        let mut rng = Mt::new(1);
        assert_eq!(uniform_f32(&mut rng), 1791095845u32 as f32 / 4294967296.0);
        let x = uniform_f32(&mut rng);
        assert!((x - 0.997_184_8).abs() < 1e-6, "{x}");
    }

    #[test]
    fn utility_numbers_cost_no_memory_and_leave_the_order_alone() {
        // A library caller may number utility nodes as it likes: the counts of a bisection
        // were indexed by the largest number (16 GiB for u32::MAX, an abort when refused).
        let nodes = |spread: fn(u32) -> u32| -> Vec<FunctionNode> {
            (0..300u64)
                .map(|id| FunctionNode {
                    id,
                    utilities: vec![spread((id % 5) as u32), spread((id % 13) as u32 + 5)],
                })
                .collect()
        };
        let small = partition(nodes(|u| u), SplitRule::Sort).unwrap();
        let huge = partition(nodes(|u| u32::MAX - 17 + u), SplitRule::Sort).unwrap();
        assert_eq!(small, huge);
        let nth = partition(nodes(|u| u * 0x0100_0000 + 3), SplitRule::NthElement).unwrap();
        assert_eq!(nth, partition(nodes(|u| u), SplitRule::NthElement).unwrap());
    }

    #[test]
    fn recursion_stays_within_the_split_depth() {
        // Long chains of nodes: the recursion ends at SPLIT_DEPTH whatever the size.
        let nodes = (0..5000u64)
            .map(|id| FunctionNode {
                id,
                utilities: vec![(id % 7) as u32, (id % 11) as u32 + 7],
            })
            .collect();
        let order = partition(nodes, SplitRule::Sort).unwrap();
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..5000).collect::<Vec<_>>());
    }
}
