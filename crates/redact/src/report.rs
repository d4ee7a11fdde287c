//! What a redaction did, per category: how many originals were found, how
//! many places were rewritten, and a few examples (original and
//! replacement) for the person sharing the copy to check.

use crate::discover::Found;
use crate::matcher::{Hit, Matcher};
use crate::Category;
use std::collections::BTreeMap;

/// Examples kept per category.
const EXAMPLES: usize = 3;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CategoryReport {
    /// Distinct originals found.
    pub originals: usize,
    /// Places rewritten.
    pub replaced: u64,
    /// (original, replacement) pairs, the longest-used first.
    pub examples: Vec<(String, String)>,
}

#[derive(Debug, Clone, Default)]
pub struct Report {
    pub categories: BTreeMap<Category, CategoryReport>,
    /// Places rewritten per needle, to choose the examples.
    uses: Vec<u64>,
    pub buffers: u64,
    /// Buffers written decompressed.
    pub decompressed: u64,
    pub events: u64,
    /// Binary IP addresses replaced.
    pub addresses: u64,
    /// Distinct command lines found (their needles are counted with them).
    pub command_lines: usize,
}

impl Report {
    pub fn new(matcher: &Matcher, found: &Found) -> Report {
        let mut r = Report {
            uses: vec![0; matcher.needles().len()],
            command_lines: found.command_lines.len(),
            ..Report::default()
        };
        for n in matcher.needles() {
            r.categories.entry(n.category).or_default().originals += 1;
        }
        r
    }

    pub fn count(&mut self, matcher: &Matcher, hits: &[Hit]) {
        for h in hits {
            if let Some(n) = matcher.needles().get(h.needle) {
                self.categories.entry(n.category).or_default().replaced += 1;
                if let Some(u) = self.uses.get_mut(h.needle) {
                    *u += 1;
                }
            }
        }
    }

    /// Pick the examples: per category the most-used needles.
    pub fn finish(&mut self, matcher: &Matcher) {
        if self.addresses > 0 {
            self.categories
                .entry(Category::Network)
                .or_default()
                .replaced += self.addresses;
        }
        let mut order: Vec<usize> = (0..matcher.needles().len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(self.uses.get(i).copied().unwrap_or(0)));
        for i in order {
            let n = &matcher.needles()[i];
            let c = self.categories.entry(n.category).or_default();
            if c.examples.len() < EXAMPLES && self.uses.get(i).copied().unwrap_or(0) > 0 {
                c.examples.push((n.key.clone(), n.replacement.clone()));
            }
        }
    }
}
