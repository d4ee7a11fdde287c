//! The Stack Tag of every model stack row under one set: what the Stack
//! Tag columns of row tables (CPU Usage (Precise), File I/O, ...) and of
//! `etlscope export` read per row. One key per distinct stack, folded from
//! the call tree's per-node keys, so a row costs one lookup.

use super::StackTags;
use crate::index::call_tree::CallTree;
use crate::index::funcs::FuncKeys;
use crate::table::columns::{ColumnType, TableDef};
use crate::Engine;
use model::{Trace, NONE};

/// Tag key per stack row, and the label of each key.
#[derive(Debug, Clone, Default)]
pub struct StackTagKeys {
    of_stack: Vec<u32>,
    labels: Vec<String>,
}

impl StackTagKeys {
    /// No stacks: every row is `n/a` (enough to list a table's columns).
    pub fn empty() -> StackTagKeys {
        StackTagKeys {
            of_stack: Vec::new(),
            labels: vec!["n/a".into()],
        }
    }

    /// The engine's set, from the keys it holds per call node.
    pub fn of_engine(e: &Engine) -> StackTagKeys {
        StackTagKeys::of_nodes(e.stack_tags(), e.call_tree(), &e.keys.node[5])
    }

    /// The engine's set for table `name`: computed only if it has a stack
    /// column, else empty.
    pub fn for_table(e: &Engine, name: &str) -> StackTagKeys {
        let has_stack = TableDef::of(e.trace(), name)
            .is_some_and(|d| d.columns.iter().any(|c| c.def.ty == ColumnType::Stack));
        if has_stack {
            StackTagKeys::of_engine(e)
        } else {
            StackTagKeys::empty()
        }
    }

    /// `tags` over `trace` without an engine (`etlscope export`): builds
    /// the function keys and call tree the engine would.
    pub fn build(trace: &Trace, tags: &StackTags) -> StackTagKeys {
        let funcs = FuncKeys::build(trace);
        let tree = CallTree::build(&trace.stacks, &funcs);
        let nodes = tags.node_keys(trace, &funcs, &tree);
        StackTagKeys::of_nodes(tags, &tree, &nodes)
    }

    fn of_nodes(tags: &StackTags, tree: &CallTree, node_keys: &[u32]) -> StackTagKeys {
        let no_stack = tags.no_stack_key();
        let of_stack = (0..tree.of_stack.len().saturating_sub(1) as u32)
            .map(|s| {
                let n = tree.node_of_stack(s);
                node_keys.get(n as usize).copied().unwrap_or(no_stack)
            })
            .collect();
        let labels = (0..=no_stack).map(|k| tags.label(k)).collect();
        StackTagKeys { of_stack, labels }
    }

    /// The key of model stack `stack` (`NONE`: no stack, `n/a`).
    pub fn key(&self, stack: u32) -> u32 {
        match stack {
            NONE => self.no_stack(),
            s => self
                .of_stack
                .get(s as usize)
                .copied()
                .unwrap_or_else(|| self.no_stack()),
        }
    }

    /// The key of rows without a stack (the last label, `n/a`).
    fn no_stack(&self) -> u32 {
        self.labels.len().saturating_sub(1) as u32
    }

    pub fn label(&self, key: u32) -> String {
        self.labels.get(key as usize).cloned().unwrap_or_default()
    }
}
