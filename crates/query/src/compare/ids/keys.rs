//! The key columns of a comparison read once per class (thread or stack
//! row), not per sample: each distinct cell gets a group id (its text, or
//! its number, as `table::flat` groups it) and an identity id (the text
//! `compare::identity` matches rows by), both shared by the two traces.
//! A class's ids for the columns of one part (its thread's columns, its
//! stack's columns) make a tuple; equal tuples are one part.

use super::texts::Texts;
use crate::compare::by_text::identity;
use crate::table::cell_value::CellValue;
use crate::table::columns::{Cells, ColumnType, TableDef, MISSING};
use rustc_hash::FxHashMap;

/// Numbers' group ids, apart from texts' (a column holds one or the other).
const NUMBER: u32 = 1 << 31;

pub(super) struct KeyColumn {
    pub name: &'static str,
    pub ty: ColumnType,
    /// Whether the column is the Stack (its ids are paths).
    pub stack: bool,
    pub texts: Texts,
    numbers: FxHashMap<i64, u32>,
}

impl KeyColumn {
    pub(super) fn new(name: &'static str, ty: ColumnType, stack: bool) -> KeyColumn {
        KeyColumn {
            name,
            ty,
            stack,
            texts: Texts::default(),
            numbers: FxHashMap::default(),
        }
    }

    /// Group and identity ids of `cell`, read as `table::flat` reads it (a
    /// number by its value, else its text).
    pub(super) fn ids(&mut self, cell: CellValue, number: Option<i64>) -> (u32, u32) {
        let ident = self.texts.id(identity(self.name, &cell, self.ty));
        let group = match number {
            Some(v) => {
                let next = self.numbers.len() as u32 | NUMBER;
                *self.numbers.entry(v).or_insert(next)
            }
            None => match cell {
                CellValue::Text(s) => self.texts.id(s),
                _ => ident,
            },
        };
        (group, ident)
    }
}

/// Identity tuples of one part, shared by both traces, in one flat array
/// (a part per distinct path: millions of small `Vec`s cost more).
#[derive(Default)]
pub(super) struct Parts {
    index: FxHashMap<Vec<u32>, u32>,
    /// One-id tuples' part by their id (`u32::MAX`: none yet), without hashing.
    single: Vec<u32>,
    /// Tuple i's ids are `flat[end[i - 1]..end[i]]`.
    end: Vec<u32>,
    flat: Vec<u32>,
}

/// One-id tuples of ids below this are found through `Parts::single`.
const DENSE: u32 = 1 << 26;

impl Parts {
    pub(super) fn id(&mut self, tuple: &[u32]) -> u32 {
        if let [x] = *tuple {
            if x < DENSE {
                let x = x as usize;
                if self.single.len() <= x {
                    self.single
                        .resize((x + 1).max(2 * self.single.len()), u32::MAX);
                }
                if let Some(&i) = self.single.get(x).filter(|&&i| i != u32::MAX) {
                    return i;
                }
                let i = self.push(tuple);
                if let Some(slot) = self.single.get_mut(x) {
                    *slot = i;
                }
                return i;
            }
        }
        if let Some(&i) = self.index.get(tuple) {
            return i;
        }
        let i = self.push(tuple);
        self.index.insert(tuple.to_vec(), i);
        i
    }

    fn push(&mut self, tuple: &[u32]) -> u32 {
        self.flat.extend_from_slice(tuple);
        self.end.push(self.flat.len() as u32);
        (self.end.len() - 1) as u32
    }

    pub(super) fn len(&self) -> usize {
        self.end.len()
    }

    /// Id `at` of tuple `p`.
    pub(super) fn get(&self, p: u32, at: usize) -> Option<u32> {
        let p = p as usize;
        let lo = match p {
            0 => 0,
            _ => *self.end.get(p - 1)? as usize,
        };
        let hi = *self.end.get(p)? as usize;
        self.flat.get(lo..hi)?.get(at).copied()
    }
}

/// One trace's parts: the local part of each class (`u32::MAX` for those
/// not read), and each local part's shared identity tuple.
pub(super) struct SideParts {
    pub of_class: Vec<u32>,
    pub shared: Vec<u32>,
}

/// Reads the columns `cols` (indices into `def` and into `columns`) at the
/// representative row of each class (`u32::MAX`: none), into parts.
pub(super) fn parts(
    def: &TableDef<'_>,
    cols: &[(usize, usize)],
    columns: &mut [KeyColumn],
    paths: Option<&[u32]>,
    stacks: usize,
    reps: &[u32],
    shared: &mut Parts,
) -> Option<SideParts> {
    let mut keyed: Vec<FxHashMap<u32, (u32, u32)>> = vec![FxHashMap::default(); cols.len()];
    let mut local: FxHashMap<Vec<u32>, u32> = FxHashMap::default();
    let mut single: Vec<u32> = Vec::new();
    let mut out = SideParts {
        of_class: vec![u32::MAX; reps.len()],
        shared: Vec::new(),
    };
    let mut group = Vec::with_capacity(cols.len());
    let mut ident = Vec::with_capacity(cols.len());
    for (class, &rep) in reps.iter().enumerate() {
        if rep == u32::MAX {
            continue;
        }
        let row = rep as usize;
        group.clear();
        ident.clear();
        for (k, &(c, pos)) in cols.iter().enumerate() {
            let col = columns.get_mut(pos)?;
            let numeric = col.ty.is_numeric();
            let (g, i) = match &def.columns.get(c)?.cells {
                Cells::Number(f) if numeric => {
                    let v = f.at(row);
                    let cell = if v == MISSING {
                        CellValue::Empty
                    } else {
                        CellValue::Number(v)
                    };
                    col.ids(cell, Some(v))
                }
                Cells::Keyed { key, text } if !numeric => {
                    let key = key(row);
                    match keyed.get(k)?.get(&key) {
                        Some(&ids) => ids,
                        None => {
                            let ids = col.ids(CellValue::Text(text(key)), None);
                            keyed.get_mut(k)?.insert(key, ids);
                            ids
                        }
                    }
                }
                Cells::Text(f) if !numeric => col.ids(CellValue::Text(f(row)), None),
                Cells::Stack(f) if col.stack => {
                    let st = (f(row) as usize).min(stacks);
                    let p = *paths?.get(st)?;
                    (p, p)
                }
                // A column read another way than grouping reads it.
                _ => return None,
            };
            group.push(g);
            ident.push(i);
        }
        // Most classes repeat a part: look it up before copying the key.
        // One id (a path: millions of them) by a dense array, not hashed.
        let dense = match *group.as_slice() {
            [g] if g < DENSE => {
                let g = g as usize;
                if single.len() <= g {
                    single.resize((g + 1).max(2 * single.len()), u32::MAX);
                }
                single.get(g).copied()
            }
            _ => None,
        };
        let found = match dense {
            Some(p) => (p != u32::MAX).then_some(p),
            None => local.get(group.as_slice()).copied(),
        };
        let part = match found {
            Some(part) => part,
            None => {
                let part = out.shared.len() as u32;
                match (
                    dense,
                    group.first().and_then(|&g| single.get_mut(g as usize)),
                ) {
                    (Some(_), Some(slot)) => *slot = part,
                    _ => {
                        local.insert(group.clone(), part);
                    }
                }
                out.shared.push(shared.id(&ident));
                part
            }
        };
        *out.of_class.get_mut(class)? = part;
    }
    Some(out)
}
