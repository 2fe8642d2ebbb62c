//! The load history of code regions over a run of segments, for regions that nest or overlap
//! too much for per-segment lists: which region, among those loaded up to a point, covered a
//! segment last, in memory that grows as n log S (n regions, S segments) however they nest.
//!
//! Regions are *painted* over their range of segments one after another, in the order of
//! their load (time, then file order); the paint of rank `r` is version `r + 1`. Each version
//! is a segment tree over the segments that shares all unchanged nodes with the one before
//! (path copying): a paint copies the nodes on the two paths to its range's ends and tags the
//! nodes that its range covers whole. The latest paint covering a segment in version `v` is
//! then the largest tag on the path from version `v`'s root to the segment, since ranks grow
//! with versions. A second, ordinary segment tree keeps for each node the first paint that
//! covered it whole, for the earliest region covering a segment at any time.

/// A node of the persistent tree. Node 0 is the empty tree (its children are itself).
#[derive(Debug, Clone, Copy, Default)]
struct Node {
    left: u32,
    right: u32,
    /// 1 + the rank of the latest paint that covers this node's range whole, or 0.
    tag: u32,
}

/// Paints of ranks 0, 1, 2, … over segments `0..len`, answering by version.
#[derive(Debug, Clone, Default)]
pub(super) struct LoadHistory {
    len: u32,
    nodes: Vec<Node>,
    /// `roots[v]`: the tree after the first `v` paints.
    roots: Vec<u32>,
    /// The ordinary tree of first paints, leaves at `width..2·width`: 1 + rank, or 0.
    first: Vec<u32>,
    width: usize,
}

impl LoadHistory {
    /// An empty history over `len` segments.
    pub(super) fn new(len: u32) -> Self {
        let width = (len as usize).next_power_of_two().max(1);
        LoadHistory {
            len,
            nodes: vec![Node::default()],
            roots: vec![0],
            first: vec![0; 2 * width],
            width,
        }
    }

    /// Nodes of the persistent tree so far (for the caller's limit).
    pub(super) fn nodes(&self) -> usize {
        self.nodes.len()
    }

    /// Paints segments `a..b` with the next rank. An empty or out-of-range part is ignored.
    pub(super) fn paint(&mut self, a: u32, b: u32) {
        let b = b.min(self.len);
        let rank = self.roots.len() as u32; // 1 + the rank of this paint
        let root = *self.roots.last().unwrap_or(&0);
        let root = if a < b {
            self.paint_node(root, 0, self.len, a, b, rank)
        } else {
            root
        };
        self.roots.push(root);
        // The ordinary tree: the canonical nodes of a..b, each tagged only by its first paint.
        let (mut l, mut r) = (a as usize + self.width, b as usize + self.width);
        while l < r {
            if l & 1 == 1 {
                if let Some(t) = self.first.get_mut(l).filter(|t| **t == 0) {
                    *t = rank;
                }
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                if let Some(t) = self.first.get_mut(r).filter(|t| **t == 0) {
                    *t = rank;
                }
            }
            l /= 2;
            r /= 2;
        }
    }

    /// A copy of `node` (covering `lo..hi`) with `a..b` painted `tag`. Recursion depth is
    /// the tree's height (at most 33).
    fn paint_node(&mut self, node: u32, lo: u32, hi: u32, a: u32, b: u32, tag: u32) -> u32 {
        if b <= lo || hi <= a {
            return node;
        }
        let mut n = self.nodes.get(node as usize).copied().unwrap_or_default();
        if a <= lo && hi <= b {
            n.tag = tag;
        } else {
            let mid = lo + (hi - lo) / 2;
            n.left = self.paint_node(n.left, lo, mid, a, b, tag);
            n.right = self.paint_node(n.right, mid, hi, a, b, tag);
        }
        self.nodes.push(n);
        (self.nodes.len() - 1) as u32
    }

    /// The rank of the latest of the first `v` paints that covers segment `s`.
    pub(super) fn latest(&self, v: usize, s: u32) -> Option<u32> {
        let mut node = *self.roots.get(v.min(self.roots.len().saturating_sub(1)))?;
        let (mut lo, mut hi) = (0, self.len);
        let mut best = 0;
        while let Some(n) = self.nodes.get(node as usize) {
            best = best.max(n.tag);
            if node == 0 || hi - lo <= 1 {
                break;
            }
            let mid = lo + (hi - lo) / 2;
            if s < mid {
                (node, hi) = (n.left, mid);
            } else {
                (node, lo) = (n.right, mid);
            }
        }
        best.checked_sub(1)
    }

    /// The rank of the first paint that covers segment `s`.
    pub(super) fn earliest(&self, s: u32) -> Option<u32> {
        let mut i = s as usize + self.width;
        let mut best = u32::MAX;
        while i >= 1 {
            if let Some(&t) = self.first.get(i).filter(|t| **t != 0) {
                best = best.min(t);
            }
            i /= 2;
        }
        best.checked_sub(1).filter(|_| best != u32::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_answer_as_a_scan_of_the_paints() {
        let mut s = 0x51_7cc1_b727_220au64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let len = 97u32;
        let mut h = LoadHistory::new(len);
        let mut paints = Vec::new();
        for _ in 0..400 {
            let a = (next() % u64::from(len)) as u32;
            let b = a + 1 + (next() % u64::from(len - a)) as u32;
            h.paint(a, b);
            paints.push((a, b));
        }
        for v in 0..=paints.len() {
            for seg in 0..len {
                let want = paints[..v]
                    .iter()
                    .rposition(|&(a, b)| a <= seg && seg < b)
                    .map(|r| r as u32);
                assert_eq!(h.latest(v, seg), want, "version {v} segment {seg}");
            }
        }
        for seg in 0..len {
            let want = paints
                .iter()
                .position(|&(a, b)| a <= seg && seg < b)
                .map(|r| r as u32);
            assert_eq!(h.earliest(seg), want, "segment {seg}");
        }
    }
}
