//! Stack tags: WPA's `.stacktags` sets (parse), matched per frame and
//! folded per stack (matcher), and the Stack Tag column's keys: one tag per
//! call node, computed once per engine, so the column groups and filters
//! like any other per-node column.

pub mod columns;
pub mod keys;

pub use keys::StackTagKeys;
pub use stacktags::{matcher, parse, pattern};
pub use stacktags::{Matcher, ParseError, ParseErrorKind, TagSet};

use crate::index::call_tree::CallTree;
use crate::index::funcs::FuncKeys;
use model::{Trace, NONE};
use std::sync::{Arc, OnceLock};

/// Our built-in set: common Windows and .NET frames, written for etlscope.
pub const DEFAULT_XML: &str = include_str!("default.stacktags");
/// The name links and queries use for the built-in set.
pub const DEFAULT_NAME: &str = "default";
/// The label of stacks no entry point matches.
pub const OTHER: &str = "Other";

/// A named, compiled set.
#[derive(Debug, Clone)]
pub struct StackTags {
    pub name: String,
    pub matcher: Matcher,
}

impl StackTags {
    pub fn parse(name: &str, xml: &str) -> Result<StackTags, ParseError> {
        Ok(StackTags {
            name: name.to_string(),
            matcher: Matcher::new(TagSet::parse(xml)?),
        })
    }

    /// The built-in set, parsed once.
    pub fn builtin() -> Arc<StackTags> {
        static SET: OnceLock<Arc<StackTags>> = OnceLock::new();
        SET.get_or_init(|| {
            // Our own file; a broken one fails the unit test below.
            let set = StackTags::parse(DEFAULT_NAME, DEFAULT_XML).unwrap_or_else(|_| StackTags {
                name: DEFAULT_NAME.into(),
                matcher: Matcher::new(TagSet::default()),
            });
            Arc::new(set)
        })
        .clone()
    }

    /// Key of stacks no entry point matches.
    pub fn other_key(&self) -> u32 {
        self.matcher.set().tags.len() as u32
    }

    /// Key of samples without a stack.
    pub fn no_stack_key(&self) -> u32 {
        self.other_key() + 1
    }

    pub fn label(&self, key: u32) -> String {
        match self.matcher.set().tags.get(key as usize) {
            Some(t) => t.clone(),
            None if key == self.other_key() => OTHER.into(),
            None => "n/a".into(),
        }
    }

    /// The key of each call node: the tag of the stack root..node.
    pub fn node_keys(&self, trace: &Trace, funcs: &FuncKeys, tree: &CallTree) -> Vec<u32> {
        let per_func: Vec<matcher::Hit> = (0..funcs.len() as u32)
            .map(|k| {
                let (module, method) = split_func(trace, funcs, k);
                self.matcher.frame(&module, &method)
            })
            .collect();
        let mut hit: Vec<matcher::Hit> = Vec::with_capacity(tree.len());
        let mut keys = Vec::with_capacity(tree.len());
        // Nodes are in preorder: a parent comes before its children.
        for n in 0..tree.len() {
            let parent = tree.parent.get(n).copied().unwrap_or(NONE);
            let func = tree.func.get(n).copied().unwrap_or(NONE);
            if func == NONE || parent == NONE {
                hit.push(None);
                keys.push(self.no_stack_key());
                continue;
            }
            let outer = hit.get(parent as usize).copied().flatten();
            let own = per_func.get(func as usize).copied().flatten();
            let h = matcher::deeper(outer, own);
            hit.push(h);
            keys.push(h.map_or(self.other_key(), |(t, _)| t));
        }
        keys
    }
}

/// Module file name and method name of a func key, as the Stack column
/// shows them (`module!method`, `module!?` before symbols, `?` outside
/// every module).
fn split_func(trace: &Trace, funcs: &FuncKeys, key: u32) -> (String, String) {
    let label = funcs.label(trace, key);
    let m = funcs.module_of(key);
    let module = trace
        .modules
        .name
        .get(m as usize)
        .map_or("?", |&s| trace.strings.get(s));
    let method = label
        .strip_prefix(module)
        .and_then(|r| r.strip_prefix('!'))
        .unwrap_or(&label);
    (module.to_string(), method.to_string())
}

#[cfg(test)]
mod tests;
