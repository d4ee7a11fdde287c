//! What a row table level adds up per group while scanning: count,
//! weight and time span (`Head`), and the value columns' sums and
//! accumulators (`Group`); shared by the general scan (`table.rs`) and the
//! flat arrays of dense levels (`dense.rs`).

use crate::table::aggregate::Acc;

/// Count, weight and time span of a group while scanning.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Head {
    pub count: u64,
    pub weight: i64,
    pub first: i64,
    pub last: i64,
}

impl Default for Head {
    fn default() -> Head {
        Head {
            count: 0,
            weight: 0,
            first: i64::MAX,
            last: i64::MIN,
        }
    }
}

impl Head {
    pub(crate) fn merge(&mut self, o: &Head) {
        self.count += o.count;
        self.weight = self.weight.saturating_add(o.weight);
        self.first = self.first.min(o.first);
        self.last = self.last.max(o.last);
    }
}

/// Per group while scanning.
#[derive(Debug, Clone)]
pub(crate) struct Group {
    pub head: Head,
    pub sums: Vec<i64>,
    pub accs: Vec<Acc>,
    pub deeper: bool,
}

impl Group {
    pub(crate) fn merge(&mut self, o: Group) {
        self.head.merge(&o.head);
        for (s, x) in self.sums.iter_mut().zip(o.sums) {
            *s = s.saturating_add(x);
        }
        for (a, x) in self.accs.iter_mut().zip(&o.accs) {
            a.merge(x);
        }
        self.deeper |= o.deeper;
    }
}
