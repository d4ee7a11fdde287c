//! Call nodes: the frame-level stack prefix tree folded to functions (like
//! Firefox Profiler's call node table), numbered in DFS preorder so that
//! "node n is under node c" is the range check `c <= n < end[c]`.

use crate::index::child_nodes::ChildNodes;
use crate::index::funcs::FuncKeys;
use model::stacks::StackTable;
use model::NONE;

/// The virtual root: the empty stack, parent of every outermost frame.
pub const ROOT: u32 = 0;

#[derive(Debug, Clone, Default)]
pub struct CallTree {
    /// Parent node (`NONE` for the root).
    pub parent: Vec<u32>,
    /// Func key (`NONE` for the root).
    pub func: Vec<u32>,
    /// The frame row that first made the node (`NONE` for the root): the
    /// node's name in links, valid before and after symbols load.
    pub frame: Vec<u32>,
    /// Frames from the outermost frame, 0 for the root.
    pub depth: Vec<u16>,
    /// One past the last node of the subtree: n's subtree is `n..end[n]`.
    pub end: Vec<u32>,
    /// Call node of each stack row; one extra last entry (the root) stands
    /// for samples without a stack.
    pub of_stack: Vec<u32>,
}

impl CallTree {
    /// Bytes held.
    pub fn heap_bytes(&self) -> usize {
        (self.parent.capacity()
            + self.func.capacity()
            + self.frame.capacity()
            + self.end.capacity()
            + self.of_stack.capacity())
            * 4
            + self.depth.capacity() * 2
    }

    /// O(#stacks). Stack rows list parents before children (the model
    /// interns root first); a row breaking that hangs off the root.
    pub fn build(stacks: &StackTable, funcs: &FuncKeys) -> CallTree {
        let n = stacks.len();
        // Provisional ids in stack order: 0 is the root.
        let mut p_parent = vec![NONE];
        let mut p_func = vec![NONE];
        let mut p_frame = vec![NONE];
        let mut children = ChildNodes::with_capacity(n + 1);
        children.add(ROOT, NONE, &p_func);
        let mut p_of_stack = Vec::with_capacity(n + 1);
        // Whether the row before made a node: a stack's rows come one after
        // another, and a node made by the row just before has no child yet,
        // so its child is added without a lookup.
        let mut previous_was_new = false;
        for s in 0..n {
            let parent = stacks.parent.get(s).copied().unwrap_or(NONE);
            let pp = if parent != NONE && (parent as usize) < s {
                p_of_stack[parent as usize]
            } else {
                ROOT
            };
            let frame = stacks.frame.get(s).copied().unwrap_or(NONE);
            let f = funcs.of_frame(frame);
            let found = if previous_was_new && parent as usize + 1 == s {
                None
            } else {
                children.find(pp, f, &p_func)
            };
            let id = match found {
                Some(id) => id,
                None => {
                    let next = p_parent.len() as u32;
                    p_parent.push(pp);
                    p_func.push(f);
                    p_frame.push(frame);
                    children.add(next, pp, &p_func);
                    next
                }
            };
            previous_was_new = found.is_none();
            p_of_stack.push(id);
        }
        p_of_stack.push(ROOT);

        // Children lists (CSR) in provisional order, then iterative DFS.
        let m = p_parent.len();
        let mut first = vec![0u32; m + 1];
        for &p in &p_parent[1..] {
            first[p as usize + 1] += 1;
        }
        for i in 0..m {
            first[i + 1] += first[i];
        }
        let mut fill = first.clone();
        let mut kids = vec![0u32; m.saturating_sub(1)];
        for (c, &p) in p_parent.iter().enumerate().skip(1) {
            kids[fill[p as usize] as usize] = c as u32;
            fill[p as usize] += 1;
        }
        let mut pre = vec![0u32; m]; // provisional -> preorder
        let mut order = Vec::with_capacity(m); // preorder -> provisional
        let mut stack = vec![ROOT];
        while let Some(p) = stack.pop() {
            pre[p as usize] = order.len() as u32;
            order.push(p);
            let (a, b) = (first[p as usize] as usize, first[p as usize + 1] as usize);
            stack.extend(kids[a..b].iter().rev());
        }
        let mut t = CallTree {
            parent: vec![NONE; m],
            func: vec![NONE; m],
            frame: vec![NONE; m],
            depth: vec![0; m],
            end: vec![0; m],
            of_stack: p_of_stack.iter().map(|&p| pre[p as usize]).collect(),
        };
        for (node, &p) in order.iter().enumerate() {
            let pp = p_parent[p as usize];
            if pp != NONE {
                let parent = pre[pp as usize];
                t.parent[node] = parent;
                t.depth[node] = t.depth[parent as usize].saturating_add(1);
            }
            t.func[node] = p_func[p as usize];
            t.frame[node] = p_frame[p as usize];
        }
        // Subtree ends by reverse preorder: a subtree ends where its last
        // child's does, or right after itself.
        for node in (0..m).rev() {
            let e = t.end[node].max(node as u32 + 1);
            t.end[node] = e;
            let p = t.parent[node];
            if p != NONE {
                t.end[p as usize] = t.end[p as usize].max(e);
            }
        }
        t
    }

    pub fn len(&self) -> usize {
        self.parent.len()
    }

    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }

    /// Call node of a sample's stack row (`NONE` -> the root).
    #[inline]
    pub fn node_of_stack(&self, stack: u32) -> u32 {
        let last = self.of_stack.len().saturating_sub(1);
        self.of_stack
            .get((stack as usize).min(last))
            .copied()
            .unwrap_or(ROOT)
    }

    #[inline]
    pub fn contains(&self, ancestor: u32, node: u32) -> bool {
        ancestor <= node && self.end.get(ancestor as usize).is_some_and(|&e| node < e)
    }

    /// Child nodes of `node`, in preorder.
    pub fn children(&self, node: u32) -> impl Iterator<Item = u32> + '_ {
        let end = self.end.get(node as usize).copied().unwrap_or(0);
        let mut c = node + 1;
        std::iter::from_fn(move || {
            if c >= end {
                return None;
            }
            let this = c;
            c = self.end.get(c as usize).copied().unwrap_or(end);
            Some(this)
        })
    }

    /// Func keys of a node's path, outermost first (the root excluded).
    pub fn path_funcs(&self, mut node: u32, out: &mut Vec<u32>) {
        out.clear();
        while node != ROOT && node != NONE {
            let i = node as usize;
            out.push(self.func.get(i).copied().unwrap_or(NONE));
            node = self.parent.get(i).copied().unwrap_or(NONE);
        }
        out.reverse();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::Trace;

    /// Frames 0..3 in module 0 (0 and 1 in one symbolized function), frame
    /// 4 a raw address.
    fn trace() -> Trace {
        let mut t = Trace::default();
        let name = t.strings.intern("a.dll");
        t.modules.push(name, name, 0x1000, 0, 0);
        for rva in 0..4 {
            t.frames.intern_module_frame(0, rva * 0x10);
        }
        t.frames.intern_raw_frame(0, 0xdead);
        t.frames.func[0] = 7;
        t.frames.func[1] = 7;
        t
    }

    #[test]
    fn stacks_share_a_node_exactly_when_their_function_paths_are_equal() {
        // Few frames over fewer functions: many stacks fold into one node,
        // and paths run on past new rows (the build's shortcut).
        let mut rng = testdata::Rng::new(43);
        let mut t = trace();
        for _ in 0..3 {
            t.frames.intern_module_frame(0, 0x100 + rng.below_u64(64));
        }
        for f in 0..t.frames.len() {
            t.frames.func[f] = rng.below(3) as u32;
        }
        for _ in 0..400 {
            let path: Vec<u32> = (0..1 + rng.below(6))
                .map(|_| rng.below(t.frames.len()) as u32)
                .collect();
            t.stacks.intern_root_first(path);
        }
        let funcs = FuncKeys::build(&t);
        let tree = CallTree::build(&t.stacks, &funcs);
        let path = |s: u32| -> Vec<u32> {
            let mut p: Vec<u32> = t
                .stacks
                .frames_leaf_first(s)
                .map(|f| funcs.of_frame(f))
                .collect();
            p.reverse();
            p
        };
        let mut by_path = std::collections::HashMap::new();
        for s in 0..t.stacks.len() as u32 {
            let node = *by_path.entry(path(s)).or_insert(tree.node_of_stack(s));
            assert_eq!(tree.node_of_stack(s), node, "stack {s}");
        }
        let distinct: std::collections::HashSet<u32> = by_path.values().copied().collect();
        assert_eq!(distinct.len(), by_path.len(), "one node per function path");
        assert_eq!(tree.len(), by_path.len() + 1, "and the root");
    }

    #[test]
    fn folds_frames_of_one_function_and_numbers_in_preorder() {
        let mut t = trace();
        // root-first stacks: [2, 0], [2, 1], [2, 3, 4], [3]
        let a = t.stacks.intern_root_first([2, 0]);
        let b = t.stacks.intern_root_first([2, 1]);
        let c = t.stacks.intern_root_first([2, 3, 4]);
        let d = t.stacks.intern_root_first([3]);
        let funcs = FuncKeys::build(&t);
        let tree = CallTree::build(&t.stacks, &funcs);
        // Frames 0 and 1 share function 7: [2,0] and [2,1] are one node.
        assert_eq!(tree.node_of_stack(a), tree.node_of_stack(b));
        // Unsymbolized frames 2 and 3 are both "a.dll!?": root, A, A>7,
        // A>A, A>A>raw.
        assert_eq!(tree.len(), 5);
        assert_eq!(tree.end[ROOT as usize], 5);
        let top: Vec<u32> = tree.children(ROOT).collect();
        assert_eq!(top.len(), 1);
        let n2 = top[0];
        assert_eq!(tree.node_of_stack(d), n2);
        assert_eq!(tree.children(n2).count(), 2);
        assert!(tree.contains(n2, tree.node_of_stack(c)));
        assert!(!tree.contains(tree.node_of_stack(a), tree.node_of_stack(c)));
        assert_eq!(tree.depth[tree.node_of_stack(c) as usize], 3);
        // No stack maps to the root.
        assert_eq!(tree.node_of_stack(NONE), ROOT);
        let mut path = Vec::new();
        tree.path_funcs(tree.node_of_stack(c), &mut path);
        assert_eq!(
            path,
            vec![funcs.of_module(0), funcs.of_module(0), funcs.unknown()]
        );
        assert_eq!(funcs.label(&t, funcs.of_frame(0)), "a.dll!func#7");
        assert_eq!(funcs.label(&t, funcs.of_frame(3)), "a.dll!?");
        assert_eq!(funcs.label(&t, funcs.unknown()), "?!?");
    }
}
