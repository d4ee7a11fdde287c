//! Stacks of a comparison matched by their path fingerprints
//! (`fingerprint.rs`) instead of paths built per request: each distinct
//! fingerprint with samples gets a dense id and remembers one stack row
//! it came from; only the stacks whose text or order a request needs
//! (the rows returned, those tied at the cut) get a path (`Paths`), built
//! from that row when first asked.

use super::class_totals::Tally;
use super::paths::{Paths, EMPTY};
use model::{Trace, NONE};
use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::sync::Arc;

/// Dense ids of the fingerprints of both traces' stacks with samples.
#[derive(Default)]
pub(super) struct FpIds {
    index: FxHashMap<u128, u32>,
    /// Per id: the side and stack class it was first seen at.
    rep: Vec<(u8, u32)>,
}

impl FpIds {
    /// Per stack class of one side, its fingerprint's id (`u32::MAX`: no
    /// samples, not read).
    pub(super) fn of_side(&mut self, side: u8, fps: &[u128], tallies: &[Tally]) -> Vec<u32> {
        let mut out = vec![u32::MAX; tallies.len()];
        for (class, ((slot, x), &fp)) in out.iter_mut().zip(tallies).zip(fps).enumerate() {
            if x.count == 0 {
                continue;
            }
            let next = self.rep.len() as u32;
            let id = *self.index.entry(fp).or_insert(next);
            if id == next {
                self.rep.push((side, class as u32));
            }
            *slot = id;
        }
        out
    }
}

/// Paths of fingerprint ids, made on demand.
pub(super) struct FpPaths {
    ids: FpIds,
    traces: [Arc<Trace>; 2],
    built: RefCell<Built>,
}

#[derive(Default)]
struct Built {
    paths: Paths,
    /// Per fingerprint id, its path (`u32::MAX`: not built yet).
    path_of: Vec<u32>,
    /// Per side, per module row, its text id (`Labels::of_frame`'s cache).
    module_text: [Vec<u32>; 2],
}

impl FpPaths {
    pub(super) fn new(ids: FpIds, traces: [Arc<Trace>; 2]) -> FpPaths {
        let built = Built {
            path_of: vec![u32::MAX; ids.rep.len()],
            module_text: [0, 1].map(|s: usize| vec![u32::MAX; traces[s].modules.name.len()]),
            ..Built::default()
        };
        FpPaths {
            ids,
            traces,
            built: RefCell::new(built),
        }
    }

    /// The path of fingerprint id `id`.
    fn path(&self, b: &mut Built, id: u32) -> u32 {
        if let Some(&p) = b.path_of.get(id as usize).filter(|&&p| p != u32::MAX) {
            return p;
        }
        let Some(&(side, class)) = self.ids.rep.get(id as usize) else {
            return EMPTY;
        };
        let t = &self.traces[usize::from(side & 1)];
        let st = &t.stacks;
        // The stack's rows leaf first (parents come before children:
        // `fingerprint::of_trace` checked it).
        let mut chain = Vec::new();
        let mut row = class;
        while (row as usize) < st.len() && chain.len() <= st.len() {
            chain.push(row);
            row = st.parent.get(row as usize).copied().unwrap_or(NONE);
        }
        let mut p = EMPTY;
        let module_text = &mut b.module_text[usize::from(side & 1)];
        for &r in chain.iter().rev() {
            let frame = st.frame.get(r as usize).copied().unwrap_or(NONE);
            let Some(l) = b.paths.labels.of_frame(t, frame, module_text) else {
                break;
            };
            p = b.paths.path(p, l);
        }
        if let Some(slot) = b.path_of.get_mut(id as usize) {
            *slot = p;
        }
        p
    }

    /// The Stack text of fingerprint id `id`.
    pub(super) fn text(&self, id: u32) -> String {
        let mut b = self.built.borrow_mut();
        let p = self.path(&mut b, id);
        b.paths.text(p)
    }

    /// The rank of each of `ids` (distinct) in the order of their texts.
    pub(super) fn ranks(&self, ids: &[u32]) -> FxHashMap<u32, u32> {
        let mut b = self.built.borrow_mut();
        let paths: Vec<u32> = ids.iter().map(|&id| self.path(&mut b, id)).collect();
        let by_path = b.paths.ranks(&paths);
        ids.iter()
            .zip(&paths)
            .map(|(&id, p)| (id, by_path.get(p).copied().unwrap_or(0)))
            .collect()
    }
}
