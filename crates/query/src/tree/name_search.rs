//! Autocomplete over a trace's functions and modules: the names that
//! contain a text (case-insensitive), those that start with it (or whose
//! function part does) first, then the busiest.

use crate::scan::filter::Filters;
use crate::{Column, Engine, QueryError};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameKind {
    Function,
    Module,
}

#[derive(Debug, Clone, PartialEq)]
pub struct NameMatch {
    pub kind: NameKind,
    /// Func key or Module column key.
    pub key: u32,
    pub label: String,
    /// Samples kept by the filters whose stack contains it.
    pub count: u64,
}

impl Engine {
    /// At most `limit` functions and modules whose name contains `text`,
    /// among those on the stack of a sample the filters keep.
    pub fn search_names(
        &self,
        text: &str,
        limit: usize,
        filters: &Filters,
    ) -> Result<Vec<NameMatch>, QueryError> {
        let want = text.trim().to_lowercase();
        if want.is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        let funcs = self.funcs.len();
        let by_func = self.inclusive_by_slot(filters, funcs, |f| f as usize)?;
        let by_module = self.inclusive_by_module(filters)?;
        // (rank, match): 0 starts with the text, 1 its function part does, 2 contains it.
        let mut found: Vec<(u8, NameMatch)> = Vec::new();
        let mut consider = |kind: NameKind, key: u32, count: u64, label: String| {
            let low = label.to_lowercase();
            let rank = if low.starts_with(&want) {
                0
            } else if low
                .split_once('!')
                .is_some_and(|(_, f)| f.starts_with(&want))
            {
                1
            } else if low.contains(&want) {
                2
            } else {
                return;
            };
            found.push((
                rank,
                NameMatch {
                    kind,
                    key,
                    label,
                    count,
                },
            ));
        };
        for (m, &count) in by_module.iter().enumerate() {
            if count > 0 {
                consider(
                    NameKind::Module,
                    m as u32,
                    count,
                    self.label(Column::Module, m as u32),
                );
            }
        }
        for (f, &count) in by_func.iter().enumerate() {
            if count > 0 {
                consider(
                    NameKind::Function,
                    f as u32,
                    count,
                    self.func_label(f as u32),
                );
            }
        }
        found.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then(b.1.count.cmp(&a.1.count))
                .then_with(|| a.1.label.cmp(&b.1.label))
        });
        found.truncate(limit);
        Ok(found.into_iter().map(|(_, m)| m).collect())
    }
}
