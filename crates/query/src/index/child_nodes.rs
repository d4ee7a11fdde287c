//! Finding a call node's child by its function while the call tree is
//! made (`CallTree::build`). Most nodes have one child or a few: their
//! children are a list, the newest first, read in the node arrays the
//! build fills anyway, so a lookup reads memory the build touched moments
//! ago. Nodes with many children (the root, a dispatcher) are found in a
//! hash map. One hash map of every node (1.6 M nodes of the 1M bench
//! trace) cost a cache miss a lookup and most of the build's time.

use model::NONE;
use rustc_hash::FxHashMap;

/// Children a node keeps in its list before they go to the map.
const LIST_MAX: u32 = 8;

#[derive(Default)]
pub(crate) struct ChildNodes {
    /// Newest child of each node, or `NONE`.
    first: Vec<u32>,
    /// The next older sibling of each node, or `NONE`.
    next: Vec<u32>,
    /// Children of each node so far.
    count: Vec<u32>,
    /// (parent, func) -> child, for parents with more than `LIST_MAX` children.
    many: FxHashMap<(u32, u32), u32>,
}

impl ChildNodes {
    /// Room for `nodes` nodes without growing.
    pub(crate) fn with_capacity(nodes: usize) -> ChildNodes {
        ChildNodes {
            first: Vec::with_capacity(nodes),
            next: Vec::with_capacity(nodes),
            count: Vec::with_capacity(nodes),
            many: FxHashMap::default(),
        }
    }

    /// The child of `parent` whose function is `func`; `func_of` gives a
    /// node's function.
    pub(crate) fn find(&self, parent: u32, func: u32, func_of: &[u32]) -> Option<u32> {
        let p = parent as usize;
        if self.count.get(p).copied().unwrap_or(0) > LIST_MAX {
            return self.many.get(&(parent, func)).copied();
        }
        let mut c = self.first.get(p).copied().unwrap_or(NONE);
        while c != NONE {
            if func_of.get(c as usize) == Some(&func) {
                return Some(c);
            }
            c = self.next.get(c as usize).copied().unwrap_or(NONE);
        }
        None
    }

    /// Add node `node` under `parent`, its function in `func_of` already
    /// (nodes are added in order, the root first with `parent` `NONE`).
    pub(crate) fn add(&mut self, node: u32, parent: u32, func_of: &[u32]) {
        debug_assert_eq!(node as usize, self.first.len());
        self.first.push(NONE);
        self.count.push(0);
        self.next.push(NONE);
        if parent == NONE {
            return;
        }
        let p = parent as usize;
        let (Some(first), Some(count)) = (self.first.get_mut(p), self.count.get_mut(p)) else {
            return;
        };
        if let Some(n) = self.next.get_mut(node as usize) {
            *n = *first;
        }
        *first = node;
        *count += 1;
        match (*count).cmp(&(LIST_MAX + 1)) {
            std::cmp::Ordering::Less => {}
            // The list is full: every child of `parent` moves to the map.
            std::cmp::Ordering::Equal => {
                let mut c = node;
                while c != NONE {
                    let f = func_of.get(c as usize).copied().unwrap_or(NONE);
                    self.many.insert((parent, f), c);
                    c = self.next.get(c as usize).copied().unwrap_or(NONE);
                }
            }
            std::cmp::Ordering::Greater => {
                let func = func_of.get(node as usize).copied().unwrap_or(NONE);
                self.many.insert((parent, func), node);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against a map of every (parent, func): random trees where some nodes
    /// get many children and some functions repeat under other parents.
    #[test]
    fn children_are_found_as_a_map_of_every_child_finds_them() {
        let mut rng = testdata::Rng::new(7);
        let mut func_of = vec![NONE];
        let mut nodes = ChildNodes::with_capacity(0);
        nodes.add(0, NONE, &func_of);
        let mut all: FxHashMap<(u32, u32), u32> = FxHashMap::default();
        for _ in 0..20_000 {
            let n = func_of.len() as u32;
            // Low parents get many children, the root most of all.
            let parent = match rng.below(4) {
                0 => 0,
                1 => rng.below_u64(u64::from(n.min(20))) as u32,
                _ => rng.below_u64(u64::from(n)) as u32,
            };
            let func = rng.below_u64(50) as u32;
            let found = nodes.find(parent, func, &func_of);
            assert_eq!(found, all.get(&(parent, func)).copied());
            if found.is_none() {
                func_of.push(func);
                nodes.add(n, parent, &func_of);
                all.insert((parent, func), n);
            }
        }
        assert!(nodes.many.len() > 100, "some parents went over the list");
        for (&(p, f), &c) in &all {
            assert_eq!(nodes.find(p, f, &func_of), Some(c));
        }
    }
}
