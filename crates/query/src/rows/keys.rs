//! The keys of a row table's column: one dense key per row with the label
//! of each key (text), the rank of each row's value (numbers), or the
//! row's call node (stacks, one level per frame).

use crate::index::call_tree::{CallTree, ROOT};
use crate::scan::filter::STACK_SELF;
use crate::table::columns::{number_text, Cells, ColumnType, TableColumn};
use crate::{Column, Engine};
use model::NONE;
use rustc_hash::FxHashMap;

/// The key (labelled `n/a`) of rows without a stack, at a stack column's first level.
pub const NO_STACK: u32 = u32::MAX - 2;

/// Labels and parents of the call nodes a stack column passes through.
#[derive(Debug, Clone, Default)]
pub(crate) struct Nodes {
    parent: FxHashMap<u32, u32>,
    label: FxHashMap<u32, String>,
}

#[derive(Debug, Clone)]
pub(crate) enum KeyColumn {
    /// Dense keys per row and the label of each key.
    Text { keys: Vec<u32>, labels: Vec<String> },
    /// Per row, the index of its value among the column's distinct values
    /// (sorted, so keys follow the numbers).
    Number { keys: Vec<u32>, values: Vec<i64> },
    /// Call node per row (`ROOT` when the row has no stack).
    Stack { nodes: Vec<u32>, tree: Nodes },
}

impl KeyColumn {
    /// The keys of a text or number column of `rows` rows (stack columns
    /// need the engine: `stack`).
    pub(crate) fn build(column: &TableColumn<'_>, rows: usize) -> KeyColumn {
        if let (Some(labels), Cells::Keyed { key, .. }) = (column.fixed_labels, &column.cells) {
            // Keys index the fixed labels: the same in every range.
            return KeyColumn::Text {
                keys: (0..rows).map(key).collect(),
                labels: labels.iter().map(|l| l.to_string()).collect(),
            };
        }
        match &column.cells {
            Cells::Number(f) => number_column((0..rows).map(|r| f.at(r))),
            Cells::Keyed { key, text } => {
                let mut by_key: FxHashMap<u32, u32> = FxHashMap::default();
                let mut texts = Texts::default();
                let keys = (0..rows)
                    .map(|row| {
                        let k = key(row);
                        *by_key.entry(k).or_insert_with(|| texts.id(text(k)))
                    })
                    .collect();
                KeyColumn::Text {
                    keys,
                    labels: texts.labels,
                }
            }
            Cells::Text(f) => {
                let mut texts = Texts::default();
                let keys = (0..rows).map(|row| texts.id(f(row))).collect();
                KeyColumn::Text {
                    keys,
                    labels: texts.labels,
                }
            }
            // Stack columns are built with the engine's call tree; without
            // it every row is `n/a`.
            Cells::Stack(_) => KeyColumn::Stack {
                nodes: vec![ROOT; rows],
                tree: Nodes::default(),
            },
        }
    }

    /// A stack column: each row's stack folded to its call node.
    pub(crate) fn stack(engine: &Engine, stacks: impl Iterator<Item = u32>) -> KeyColumn {
        let tree = engine.call_tree();
        let mut nodes = Nodes::default();
        let per_row: Vec<u32> = stacks
            .map(|s| match s {
                NONE => ROOT,
                s => tree.node_of_stack(s),
            })
            .collect();
        for &node in &per_row {
            nodes.add_chain(engine, tree, node);
        }
        KeyColumn::Stack {
            nodes: per_row,
            tree: nodes,
        }
    }

    /// Display text of `key` (`ty`: the column's type, for numbers).
    pub(crate) fn label(&self, ty: ColumnType, key: u32) -> String {
        match self {
            KeyColumn::Text { labels, .. } => labels.get(key as usize).cloned().unwrap_or_default(),
            KeyColumn::Number { values, .. } => values
                .get(key as usize)
                .map_or_else(String::new, |&v| number_text(ty, v)),
            KeyColumn::Stack { tree, .. } => match key {
                STACK_SELF => "[self]".into(),
                NO_STACK => "n/a".into(),
                n => tree.label.get(&n).cloned().unwrap_or_else(|| "?".into()),
            },
        }
    }

    /// Every key shown as `label`.
    pub(crate) fn keys_of_label(&self, ty: ColumnType, label: &str) -> Vec<u32> {
        match self {
            KeyColumn::Text { labels, .. } => labels
                .iter()
                .position(|l| l == label)
                .map(|k| vec![k as u32])
                .unwrap_or_default(),
            KeyColumn::Number { values, .. } => values
                .iter()
                .position(|&v| number_text(ty, v) == label)
                .map(|k| vec![k as u32])
                .unwrap_or_default(),
            KeyColumn::Stack { tree, .. } => {
                let mut v: Vec<u32> = match label {
                    "n/a" => vec![NO_STACK],
                    _ => tree
                        .label
                        .iter()
                        .filter(|(_, l)| *l == label)
                        .map(|(&n, _)| n)
                        .collect(),
                };
                v.sort_unstable();
                v
            }
        }
    }

    /// The row's keys, one per level: one for text and numbers; for a
    /// stack, its call nodes root first, then `[self]` (`n/a` without one).
    pub(crate) fn levels_of(&self, row: usize, scratch: &mut Vec<u32>, mut out: impl FnMut(u32)) {
        match self {
            KeyColumn::Text { keys, .. } | KeyColumn::Number { keys, .. } => {
                out(keys.get(row).copied().unwrap_or(0))
            }
            KeyColumn::Stack { nodes, tree } => {
                chain(tree, nodes.get(row).copied().unwrap_or(ROOT), scratch);
                scratch.iter().for_each(|&n| out(n));
                out(if scratch.is_empty() {
                    NO_STACK
                } else {
                    STACK_SELF
                });
            }
        }
    }

    /// Whether row `row` has one of `values` (a stack: passes through one
    /// of the call nodes), or with `exclude` has none.
    pub(crate) fn passes(
        &self,
        row: usize,
        values: &[u32],
        exclude: bool,
        scratch: &mut Vec<u32>,
    ) -> bool {
        let hit = match self {
            KeyColumn::Text { keys, .. } | KeyColumn::Number { keys, .. } => {
                keys.get(row).is_some_and(|k| values.contains(k))
            }
            KeyColumn::Stack { nodes, tree } => {
                chain(tree, nodes.get(row).copied().unwrap_or(ROOT), scratch);
                if scratch.is_empty() {
                    values.contains(&NO_STACK)
                } else {
                    scratch.iter().any(|n| values.contains(n))
                }
            }
        };
        hit != exclude
    }

    /// The label ids of a text column (a value column's per-row reading).
    pub(crate) fn text_keys(&self) -> Option<(&[u32], &[String])> {
        match self {
            KeyColumn::Text { keys, labels } => Some((keys, labels)),
            _ => None,
        }
    }

    /// Per-row keys and the key space (every key is below it) of a text
    /// or number column; `None` for a stack column (one key per frame).
    pub(crate) fn dense(&self) -> Option<(&[u32], usize)> {
        match self {
            KeyColumn::Text { keys, labels } => Some((keys, labels.len())),
            KeyColumn::Number { keys, values } => Some((keys, values.len())),
            KeyColumn::Stack { .. } => None,
        }
    }

    /// Whether keys order as the column's numbers do.
    pub(crate) fn is_number(&self) -> bool {
        matches!(self, KeyColumn::Number { .. })
    }
}

/// Dense ids for labels.
#[derive(Default)]
struct Texts {
    index: FxHashMap<String, u32>,
    labels: Vec<String>,
}

impl Texts {
    fn id(&mut self, s: String) -> u32 {
        if let Some(&i) = self.index.get(&s) {
            return i;
        }
        let i = self.labels.len() as u32;
        self.labels.push(s.clone());
        self.index.insert(s, i);
        i
    }
}

/// Keys of a number column: the rank of each row's value among the
/// distinct values.
fn number_column(cells: impl Iterator<Item = i64>) -> KeyColumn {
    let per_row: Vec<i64> = cells.collect();
    let mut values = per_row.clone();
    values.sort_unstable();
    values.dedup();
    let keys = per_row
        .iter()
        .map(|v| values.binary_search(v).unwrap_or(0) as u32)
        .collect();
    KeyColumn::Number { keys, values }
}

/// The row's call nodes of a stack column, outermost first.
fn chain(tree: &Nodes, node: u32, out: &mut Vec<u32>) {
    out.clear();
    let mut n = node;
    while n != ROOT && out.len() < u16::MAX as usize {
        out.push(n);
        n = tree.parent.get(&n).copied().unwrap_or(ROOT);
    }
    out.reverse();
}

impl Nodes {
    fn add_chain(&mut self, engine: &Engine, tree: &CallTree, node: u32) {
        // Parents precede children in preorder, so the walk ends; the
        // bound only guards a malformed tree.
        let mut n = node;
        let mut steps = 0usize;
        while n != ROOT && n != NONE && !self.label.contains_key(&n) && steps <= tree.len() {
            steps += 1;
            let p = tree.parent.get(n as usize).copied().unwrap_or(ROOT);
            self.parent.insert(n, if p == NONE { ROOT } else { p });
            self.label.insert(n, engine.label(Column::Stack, n));
            n = p;
        }
    }
}
