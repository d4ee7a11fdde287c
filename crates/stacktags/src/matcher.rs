//! Which tag a stack gets. WPA's rule (Microsoft's "Stack Tags" page of
//! the Windows Performance Toolkit docs, learn.microsoft.com/windows-hardware/
//! test/wpt/stack-tags): each frame maps to the tag of the entry point it
//! matches, and "the bottom most mapped frame tag is typically made the
//! stack tag unless there is priority specified for tags". So: among the
//! frames that match, the highest `Priority` wins, and among equal
//! priorities the deepest frame (nearest the leaf) wins. Within one frame
//! matching several entry points, the highest priority and then the first
//! in the file wins. A stack no entry point matches is `Other`.

use crate::parse::TagSet;
use rustc_hash::FxHashMap;

/// The tag of one frame or stack: (tag index, priority).
pub type Hit = Option<(u32, i64)>;

/// A set compiled for lookups: entry points by exact module name, plus
/// those whose module is a pattern.
#[derive(Debug, Clone)]
pub struct Matcher {
    set: TagSet,
    by_module: FxHashMap<String, Vec<usize>>,
    wild: Vec<usize>,
}

impl Matcher {
    pub fn new(set: TagSet) -> Matcher {
        let mut by_module: FxHashMap<String, Vec<usize>> = FxHashMap::default();
        let mut wild = Vec::new();
        for (i, e) in set.entries.iter().enumerate() {
            let m = e.module.text();
            if m.contains(['*', '?']) {
                wild.push(i);
            } else {
                by_module.entry(m).or_default().push(i);
            }
        }
        Matcher {
            set,
            by_module,
            wild,
        }
    }

    pub fn set(&self) -> &TagSet {
        &self.set
    }

    /// The tag of a frame in `module` (file name, e.g. `ntdll.dll`) and
    /// `method` (`?` when not symbolized).
    pub fn frame(&self, module: &str, method: &str) -> Hit {
        let exact = self
            .by_module
            .get(&module.to_ascii_lowercase())
            .map_or(&[][..], |v| v.as_slice());
        let mut best: Option<(usize, i64)> = None;
        for &i in exact.iter().chain(&self.wild) {
            let Some(e) = self.set.entries.get(i) else {
                continue;
            };
            let better = match best {
                None => true,
                Some((bi, bp)) => e.priority > bp || (e.priority == bp && i < bi),
            };
            if better && e.module.matches(module) && e.method.matches(method) {
                best = Some((i, e.priority));
            }
        }
        best.and_then(|(i, p)| self.set.entries.get(i).map(|e| (e.tag, p)))
    }
}

/// The stack's tag so far (`outer`, frames nearer the root) extended by
/// one deeper frame's tag: the deeper frame wins unless `outer` has a
/// strictly higher priority.
pub fn deeper(outer: Hit, inner: Hit) -> Hit {
    match (outer, inner) {
        (Some(o), Some(i)) if o.1 > i.1 => Some(o),
        (_, Some(i)) => Some(i),
        (o, None) => o,
    }
}
