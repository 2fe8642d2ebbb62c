//! Context trees: calling contexts interned as paths in one tree.
//!
//! A node is a method *in a calling context*: the root nodes are outermost callers (a
//! compilation root, or the bottom of a sampled stack) and a child is the callee invoked from
//! its parent at a call-site BCI. Children are interned by `(parent, call-site BCI, callee)`,
//! so every distinct context is exactly one node, and nodes are stored in an arena with
//! parents before children (a node's id is larger than its parent's), which lets passes
//! translate or rebuild a tree in one forward sweep.
//!
//! A profile location is a [`Site`]: a node plus a BCI inside that node's method. The iprof
//! context string `m1:b1<m2:b2<m3:b3` (innermost first) is the site (node of `m1` called at
//! `b2` from `m2`, called at `b3` from root `m3`; BCI `b1`). BCIs are Java `int`s and may be
//! negative (JVMCI placeholder BCIs such as -1 UNWIND or -6 INVALID_FRAMESTATE).

use std::hash::Hasher;

use super::fx::FxHasher;
use super::java_symbols::MethodId;

/// A node of one [`ContextTree`]: an index into its arena.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

/// A location in a context: the node's method at bytecode index `bci`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Site {
    /// The method in its calling context.
    pub node: NodeId,
    /// Bytecode index inside the node's method (0 = method entry).
    pub bci: i32,
}

/// One frame of a context, as written in iprof: a method and a BCI in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Frame {
    /// The method.
    pub method: MethodId,
    /// Bytecode index in it: the location for the innermost frame, the invoke's BCI for
    /// the others.
    pub bci: i32,
}

/// A node: `method`, called from `parent` at `call_site` (roots have no parent and call
/// site 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextNode {
    /// The caller's node; `None` for a root.
    pub parent: Option<NodeId>,
    /// BCI of the invoke in the parent's method (0 for roots).
    pub call_site: i32,
    /// The method this node stands for.
    pub method: MethodId,
    /// Number of frames from the root to this node, counting both (a root has depth 1).
    pub depth: u32,
}

const NO_PARENT: u32 = u32::MAX;

/// The interning key of node `id`: (parent or [`NO_PARENT`], call site, method).
fn node_key(nodes: &[ContextNode], id: u32) -> Option<(u32, i32, u32)> {
    let n = nodes.get(id as usize)?;
    Some((n.parent.map_or(NO_PARENT, |p| p.0), n.call_site, n.method.0))
}

fn key_hash((parent, call_site, method): (u32, i32, u32)) -> u64 {
    let mut h = FxHasher::default();
    h.write_u32(parent);
    h.write_i32(call_site);
    h.write_u32(method);
    h.finish()
}

/// An arena of context nodes, parents before children, children interned by
/// `(parent, call site, callee)`.
#[derive(Debug, Clone, Default)]
pub struct ContextTree {
    nodes: Vec<ContextNode>,
    /// Node ids, found by `(parent, call site, method)` ([`key_hash`]): four bytes a node
    /// where a map from key to id would take sixteen.
    index: hashbrown::HashTable<u32>,
}

impl PartialEq for ContextTree {
    fn eq(&self, other: &Self) -> bool {
        self.nodes == other.nodes
    }
}

impl ContextTree {
    /// An empty tree.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True if there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Reserves room for `n` more nodes.
    pub fn reserve(&mut self, n: usize) {
        self.nodes.reserve(n);
        let nodes = &self.nodes;
        self.index
            .reserve(n, |&id| node_key(nodes, id).map_or(0, key_hash));
    }

    /// The node for `method` called from `parent` at `call_site` (a root when `parent` is
    /// `None`; the call site of a root is ignored), adding it if new.
    pub fn intern(&mut self, parent: Option<NodeId>, call_site: i32, method: MethodId) -> NodeId {
        let (p, cs, depth) = match parent.and_then(|p| self.nodes.get(p.0 as usize).map(|n| (p, n)))
        {
            Some((p, n)) => (p.0, call_site, n.depth.saturating_add(1)),
            None => (NO_PARENT, 0, 1),
        };
        let key = (p, cs, method.0);
        let hash = key_hash(key);
        let nodes = &self.nodes;
        if let Some(&id) = self
            .index
            .find(hash, |&id| node_key(nodes, id) == Some(key))
        {
            return NodeId(id);
        }
        let id = self.nodes.len() as u32;
        self.nodes.push(ContextNode {
            parent: (p != NO_PARENT).then_some(NodeId(p)),
            call_site: cs,
            method,
            depth,
        });
        let nodes = &self.nodes;
        self.index
            .insert_unique(hash, id, |&id| node_key(nodes, id).map_or(0, key_hash));
        NodeId(id)
    }

    /// The existing node for `(parent, call_site, method)`, if any.
    pub fn find(&self, parent: Option<NodeId>, call_site: i32, method: MethodId) -> Option<NodeId> {
        let key = match parent {
            Some(p) => (p.0, call_site, method.0),
            None => (NO_PARENT, 0, method.0),
        };
        let nodes = &self.nodes;
        self.index
            .find(key_hash(key), |&id| node_key(nodes, id) == Some(key))
            .map(|&id| NodeId(id))
    }

    /// Interns a context given innermost frame first (the iprof order) and returns its site,
    /// or `None` for an empty slice.
    pub fn intern_innermost_first(&mut self, frames: &[Frame]) -> Option<Site> {
        let (innermost, _) = frames.split_first()?;
        let mut node: Option<NodeId> = None;
        // Walk outermost → innermost: each frame's BCI is the call site of the next one in.
        let mut call_site = 0;
        for f in frames.iter().rev() {
            node = Some(self.intern(node, call_site, f.method));
            call_site = f.bci;
        }
        node.map(|node| Site {
            node,
            bci: innermost.bci,
        })
    }

    /// A node, or `None` for an id not of this tree.
    pub fn get(&self, id: NodeId) -> Option<&ContextNode> {
        self.nodes.get(id.0 as usize)
    }

    /// All nodes in arena order (parents before children).
    pub fn nodes(&self) -> impl ExactSizeIterator<Item = (NodeId, &ContextNode)> {
        self.nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (NodeId(i as u32), n))
    }

    /// Depth of a site's context in frames (0 for an unknown node).
    pub fn depth(&self, node: NodeId) -> u32 {
        self.get(node).map_or(0, |n| n.depth)
    }

    /// The frames of a site, innermost first (the iprof order).
    pub fn frames(&self, site: Site) -> Frames<'_> {
        Frames {
            tree: self,
            next: Some((site.node, site.bci)),
        }
    }
}

/// Iterator over the frames of a site, innermost first.
#[derive(Debug, Clone)]
pub struct Frames<'a> {
    tree: &'a ContextTree,
    next: Option<(NodeId, i32)>,
}

impl Iterator for Frames<'_> {
    type Item = Frame;
    fn next(&mut self) -> Option<Frame> {
        let (id, bci) = self.next.take()?;
        let n = self.tree.get(id)?;
        self.next = n.parent.map(|p| (p, n.call_site));
        Some(Frame {
            method: n.method,
            bci,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(m: u32, bci: i32) -> Frame {
        Frame {
            method: MethodId(m),
            bci,
        }
    }

    #[test]
    fn paths_share_prefixes_and_round_trip() {
        let mut t = ContextTree::new();
        // 5:0<3:2<1:3 and 4:7<3:2<1:3 share the nodes of 1 and 3.
        let a = t
            .intern_innermost_first(&[f(5, 0), f(3, 2), f(1, 3)])
            .unwrap();
        let b = t
            .intern_innermost_first(&[f(4, 7), f(3, 2), f(1, 3)])
            .unwrap();
        assert_eq!(t.len(), 4);
        assert_eq!(
            t.frames(a).collect::<Vec<_>>(),
            vec![f(5, 0), f(3, 2), f(1, 3)]
        );
        assert_eq!(
            t.frames(b).collect::<Vec<_>>(),
            vec![f(4, 7), f(3, 2), f(1, 3)]
        );
        assert_eq!(t.depth(a.node), 3);
        // Same method at another call site is another node.
        let c = t
            .intern_innermost_first(&[f(5, 0), f(3, -6), f(1, 3)])
            .unwrap();
        assert_ne!(c.node, a.node);
        for (id, n) in t.nodes() {
            if let Some(p) = n.parent {
                assert!(p < id);
            }
        }
        assert_eq!(t.intern_innermost_first(&[]), None);
    }
}
