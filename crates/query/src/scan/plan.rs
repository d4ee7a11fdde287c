//! A compiled query: one `u32` per thread, CPU and stack row saying whether
//! a sample fails the filters, fails the tree path, or else which output
//! slot it adds to. The scan ORs three lookups per sample and nothing else.

use crate::index::columns::CPUS;
use crate::scan::filter::{Filters, Pred, MAX_SELECTION_PATHS};
use crate::{Engine, QueryError};
use std::ops::Range;

pub(crate) const FILTER_FAIL: u32 = 1 << 31;
pub(crate) const PATH_FAIL: u32 = 1 << 30;
pub(crate) const SLOT_MASK: u32 = PATH_FAIL - 1;

/// Which slot a passing sample adds to, from one of its key sources.
pub(crate) enum SlotOf {
    /// Everything in slot 0.
    One,
    Thread(Vec<u32>),
    Cpu(Vec<u32>),
    Node(Vec<u32>),
    /// Per Region column key.
    Region(Vec<u32>),
}

/// Per-source bitmasks of the selection paths a sample can be under.
pub(crate) struct Masks {
    pub thread: Vec<u64>,
    pub cpu: Vec<u64>,
    pub stack: Vec<u64>,
    /// Per Region column key; `None` when no path names a region.
    pub region: Option<Vec<u64>>,
}

pub(crate) struct Plan {
    pub thread: Vec<u32>,
    pub cpu: Vec<u32>,
    /// One entry per stack row plus a last one for samples without a stack.
    pub stack: Vec<u32>,
    /// Per call node (the source of `stack`), for choosing what to scan.
    pub node: Vec<u32>,
    pub selection: Option<Masks>,
    /// Sample rows in the time range.
    pub rows: Range<usize>,
    /// The time range, `i64` bounds when none.
    pub time: (i64, i64),
    pub slots: usize,
    /// Whether the thread, CPU and stack arrays decide anything (an array
    /// of zeros passes every sample into slot 0 and need not be read).
    pub uses: (bool, bool, bool),
    /// Per Region column key, read through the sample's time when
    /// `uses_region` (a filter, path or level on Region).
    pub region: Vec<u32>,
    pub uses_region: bool,
}

fn bits(filter_ok: bool, path_ok: bool, slot: u32) -> u32 {
    let f = if filter_ok { 0 } else { FILTER_FAIL };
    let p = if path_ok { 0 } else { PATH_FAIL };
    f | p | (slot & SLOT_MASK)
}

impl Engine {
    /// Sample rows whose time lies in the filters' range.
    pub(crate) fn rows_in_range(&self, filters: &Filters) -> Range<usize> {
        let time = &self.trace.samples.time;
        match filters.range {
            None => 0..time.len(),
            Some(r) => {
                let lo = time.partition_point(|&t| t < r.start_ns);
                let hi = time.partition_point(|&t| t < r.end_ns).max(lo);
                lo..hi
            }
        }
    }

    pub(crate) fn plan(
        &self,
        filters: &Filters,
        path: &[Pred],
        slot_of: SlotOf,
        slots: usize,
    ) -> Result<Plan, QueryError> {
        let f = self.verdicts(&self.filter_preds(filters));
        let p = self.verdicts(path);
        let slot = |v: &Option<&Vec<u32>>, i: usize| v.and_then(|v| v.get(i).copied());
        let (ts, cs, ns, rs) = match &slot_of {
            SlotOf::One => (None, None, None, None),
            SlotOf::Thread(v) => (Some(v), None, None, None),
            SlotOf::Cpu(v) => (None, Some(v), None, None),
            SlotOf::Node(v) => (None, None, Some(v), None),
            SlotOf::Region(v) => (None, None, None, Some(v)),
        };
        // A sample whose key has no slot cannot be counted: fail its path.
        let make = |fo: &[bool], po: &[bool], s: Option<&Vec<u32>>| -> Vec<u32> {
            (0..fo.len())
                .map(|i| {
                    let sl = if s.is_some() { slot(&s, i) } else { Some(0) };
                    let sl = sl.filter(|&x| (x as usize) < slots);
                    bits(fo[i], po[i] && sl.is_some(), sl.unwrap_or(0))
                })
                .collect()
        };
        let thread = make(&f.thread, &p.thread, ts);
        let cpu = make(&f.cpu, &p.cpu, cs);
        let node = make(&f.node, &p.node, ns);
        let region = make(&f.region, &p.region, rs);
        let stack: Vec<u32> = self
            .tree
            .of_stack
            .iter()
            .map(|&n| node.get(n as usize).copied().unwrap_or(FILTER_FAIL))
            .collect();
        let selection = match &filters.selection {
            Some(sel) => Some(self.selection_masks(sel)?),
            None => None,
        };
        let used = |v: &[u32]| v.iter().any(|&x| x != 0);
        let uses = (used(&thread), used(&cpu), used(&stack));
        let uses_region = used(&region)
            || selection
                .as_ref()
                .is_some_and(|m: &Masks| m.region.is_some());
        Ok(Plan {
            uses,
            region,
            uses_region,
            thread,
            cpu,
            stack,
            node,
            selection,
            rows: self.rows_in_range(filters),
            time: filters
                .range
                .map_or((i64::MIN, i64::MAX), |r| (r.start_ns, r.end_ns)),
            slots,
        })
    }

    fn selection_masks(&self, sel: &crate::scan::filter::Selection) -> Result<Masks, QueryError> {
        if sel.paths.len() > MAX_SELECTION_PATHS {
            return Err(QueryError::BadPath(format!(
                "a selection holds at most {MAX_SELECTION_PATHS} paths"
            )));
        }
        let mut m = Masks {
            thread: vec![0; self.trace.threads.len()],
            cpu: vec![0; CPUS],
            stack: vec![0; self.tree.of_stack.len()],
            region: None,
        };
        let mut region = vec![0u64; self.region_keys()];
        let mut region_decides = false;
        for (bit, path) in sel.paths.iter().enumerate() {
            let (preds, _) = self.path_preds(&sel.columns, path)?;
            let v = self.verdicts(&preds);
            let b = 1u64 << bit;
            for (m, ok) in m.thread.iter_mut().zip(&v.thread) {
                *m |= if *ok { b } else { 0 };
            }
            for (m, ok) in m.cpu.iter_mut().zip(&v.cpu) {
                *m |= if *ok { b } else { 0 };
            }
            for (m, ok) in region.iter_mut().zip(&v.region) {
                *m |= if *ok { b } else { 0 };
                region_decides |= !*ok;
            }
            for (m, &n) in m.stack.iter_mut().zip(&self.tree.of_stack) {
                *m |= if v.node.get(n as usize).copied().unwrap_or(false) {
                    b
                } else {
                    0
                };
            }
        }
        if region_decides {
            m.region = Some(region);
        }
        Ok(m)
    }
}
