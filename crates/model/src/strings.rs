//! One interner for every string of a trace; tables hold `StrId`s.

use std::collections::HashMap;

/// Strings come from untrusted traces: a seeded hash (foldhash's
/// per-process random state, minimally DoS-resistant) rather than an unseeded
/// one, and much faster than std's SipHash on the hundred thousand strings of
/// a large trace.
type Hasher = foldhash::fast::RandomState;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct StrId(pub u32);

impl StrId {
    /// The empty string is always id 0.
    pub const EMPTY: StrId = StrId(0);
}

#[derive(Debug, Clone)]
pub struct StringTable {
    strings: Vec<Box<str>>,
    index: HashMap<Box<str>, StrId, Hasher>,
}

impl Default for StringTable {
    fn default() -> Self {
        let mut t = StringTable {
            strings: Vec::new(),
            index: HashMap::default(),
        };
        t.intern("");
        t
    }
}

impl StringTable {
    pub fn intern(&mut self, s: &str) -> StrId {
        if let Some(&id) = self.index.get(s) {
            return id;
        }
        let id = StrId(self.strings.len() as u32);
        self.strings.push(s.into());
        self.index.insert(s.into(), id);
        id
    }

    pub fn get(&self, id: StrId) -> &str {
        self.strings.get(id.0 as usize).map_or("", |s| s)
    }

    /// The id of `s` if it was interned.
    pub fn find(&self, s: &str) -> Option<StrId> {
        self.index.get(s).copied()
    }

    pub fn len(&self) -> usize {
        self.strings.len()
    }

    pub fn is_empty(&self) -> bool {
        self.strings.len() <= 1
    }

    pub fn heap_bytes(&self) -> usize {
        self.strings.iter().map(|s| s.len() * 2 + 32).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_is_idempotent() {
        let mut t = StringTable::default();
        assert_eq!(t.intern(""), StrId::EMPTY);
        let a = t.intern("explorer.exe");
        assert_eq!(t.intern("explorer.exe"), a);
        assert_eq!(t.get(a), "explorer.exe");
        assert_eq!(t.find("nope"), None);
    }
}
