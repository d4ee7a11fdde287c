//! Small tables (Processes, Threads, Images) as grouped WPA tables. Rows
//! carry a lifetime and one dense key per column, built once per table;
//! queries are plain loops (thousands of rows, not millions).

use crate::filter::TimeRange;
use crate::table_query::{percent, Row, SortBy, TableResponse, Totals, ValueColumn};
use crate::QueryError;
use model::processes::OPEN;
use model::Trace;
use rustc_hash::FxHashMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum RowTableKind {
    Processes,
    Threads,
    Images,
}

/// Keep (or drop) rows whose key in column `column` is one of `values`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RowFilter {
    pub column: usize,
    pub values: Vec<u32>,
    pub exclude: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RowTableRequest {
    /// Key columns (indices into `RowTable::columns`), outermost first.
    pub columns: Vec<usize>,
    pub filters: Vec<RowFilter>,
    /// Rows alive at some time in the range.
    pub range: Option<TimeRange>,
    pub path: Vec<u32>,
    pub sort: SortBy,
    pub limit: usize,
}

/// A row table with its per-column keys and labels.
#[derive(Debug, Clone)]
pub struct RowTable {
    pub kind: RowTableKind,
    pub columns: Vec<&'static str>,
    /// `keys[column][row]`.
    keys: Vec<Vec<u32>>,
    /// `labels[column][key]`.
    labels: Vec<Vec<String>>,
    start: Vec<i64>,
    end: Vec<i64>,
}

/// Column names, label rows, and row lifetimes (start, end).
type Built = (Vec<&'static str>, Vec<Vec<String>>, Vec<i64>, Vec<i64>);

fn secs(ns: i64) -> String {
    if ns == OPEN {
        String::new()
    } else {
        format!("{:.9}", ns as f64 / 1e9)
    }
}

impl RowTable {
    pub fn build(trace: &Trace, kind: RowTableKind) -> RowTable {
        let t = trace;
        let s = |id: model::strings::StrId| t.strings.get(id).to_string();
        let (columns, rows, start, end): Built = match kind {
            RowTableKind::Processes => {
                let p = &t.processes;
                let rows = (0..p.len())
                    .map(|i| {
                        vec![
                            t.process_label(i as u32),
                            s(p.name[i]),
                            p.pid[i].to_string(),
                            p.parent_pid[i].to_string(),
                            s(p.command_line[i]),
                            p.session[i].to_string(),
                            secs(p.start[i]),
                            secs(p.end[i]),
                            p.exit_status[i].to_string(),
                        ]
                    })
                    .collect();
                let cols = vec![
                    "Process",
                    "Process Name",
                    "PID",
                    "Parent PID",
                    "Command Line",
                    "Session",
                    "Start Time",
                    "End Time",
                    "Exit Status",
                ];
                (cols, rows, p.start.clone(), p.end.clone())
            }
            RowTableKind::Threads => {
                let th = &t.threads;
                let rows = (0..th.len())
                    .map(|i| {
                        vec![
                            t.process_label(th.process[i]),
                            th.tid[i].to_string(),
                            s(th.name[i]),
                            format!("{:#x}", th.start_address[i]),
                            secs(th.start[i]),
                            secs(th.end[i]),
                        ]
                    })
                    .collect();
                let cols = vec![
                    "Process",
                    "Thread ID",
                    "Thread Name",
                    "Start Address",
                    "Start Time",
                    "End Time",
                ];
                (cols, rows, th.start.clone(), th.end.clone())
            }
            RowTableKind::Images => {
                let im = &t.images;
                let m = &t.modules;
                let rows = (0..im.len())
                    .map(|i| {
                        let md = im.module[i] as usize;
                        let ms = |col: &[model::strings::StrId]| {
                            col.get(md).map_or_else(String::new, |&x| s(x))
                        };
                        vec![
                            t.process_label(im.process[i]),
                            ms(&m.name),
                            ms(&m.path),
                            ms(&m.file_version),
                            ms(&m.product_name),
                            ms(&m.company_name),
                            ms(&m.file_description),
                            format!("{:#x}", im.base[i]),
                            im.size[i].to_string(),
                            secs(im.load[i]),
                            secs(im.unload[i]),
                            ms(&m.pdb_name),
                        ]
                    })
                    .collect();
                let cols = vec![
                    "Process",
                    "Image Name",
                    "Image Path",
                    "File Version",
                    "Product Name",
                    "Company Name",
                    "Description",
                    "Base Address",
                    "Size",
                    "Load Time",
                    "Unload Time",
                    "PDB Name",
                ];
                (cols, rows, im.load.clone(), im.unload.clone())
            }
        };
        let mut keys = vec![Vec::with_capacity(rows.len()); columns.len()];
        let mut labels: Vec<Vec<String>> = vec![Vec::new(); columns.len()];
        let mut index: Vec<FxHashMap<String, u32>> = vec![FxHashMap::default(); columns.len()];
        for row in rows {
            for (c, v) in row.into_iter().enumerate() {
                let next = labels[c].len() as u32;
                let k = *index[c].entry(v.clone()).or_insert(next);
                if k == next {
                    labels[c].push(v);
                }
                keys[c].push(k);
            }
        }
        RowTable {
            kind,
            columns,
            keys,
            labels,
            start,
            end,
        }
    }

    pub fn len(&self) -> usize {
        self.start.len()
    }

    pub fn is_empty(&self) -> bool {
        self.start.is_empty()
    }

    pub fn label(&self, column: usize, key: u32) -> &str {
        self.labels
            .get(column)
            .and_then(|l| l.get(key as usize))
            .map_or("", |s| s)
    }

    fn alive(&self, row: usize, r: &TimeRange) -> bool {
        let (s, e) = (self.start[row], self.end[row]);
        (s == OPEN || s < r.end_ns) && (e == OPEN || e >= r.start_ns)
    }

    /// Rows under `req.path`, grouped by the next key column.
    pub fn query(&self, req: &RowTableRequest) -> Result<TableResponse, QueryError> {
        let bad = |c: usize| c >= self.columns.len();
        if req.columns.iter().any(|&c| bad(c)) || req.filters.iter().any(|f| bad(f.column)) {
            return Err(QueryError::BadRequest("no such column".into()));
        }
        if req.path.len() > req.columns.len() {
            return Err(QueryError::BadPath(
                "path is longer than the key columns".into(),
            ));
        }
        let next = req.columns.get(req.path.len()).copied();
        let more = req.path.len() + 1 < req.columns.len();
        let mut total = 0u64;
        let mut parent = 0u64;
        let mut groups: FxHashMap<u32, u64> = FxHashMap::default();
        for row in 0..self.len() {
            let keep = req.range.is_none_or(|r| self.alive(row, &r))
                && req
                    .filters
                    .iter()
                    .all(|f| f.values.contains(&self.keys[f.column][row]) != f.exclude);
            if !keep {
                continue;
            }
            total += 1;
            let under = req
                .path
                .iter()
                .zip(&req.columns)
                .all(|(&k, &c)| self.keys[c][row] == k);
            if !under {
                continue;
            }
            parent += 1;
            if let Some(c) = next {
                *groups.entry(self.keys[c][row]).or_default() += 1;
            }
        }
        let mut rows: Vec<Row> = groups
            .into_iter()
            .map(|(key, count)| Row {
                key,
                label: next.map_or_else(String::new, |c| self.label(c, key).to_string()),
                count,
                weight_ns: 0,
                percent_weight: percent(count as i64, total as i64),
                first_ns: 0,
                last_ns: 0,
                expandable: more,
            })
            .collect();
        let by = req.sort;
        rows.sort_by(|a, b| {
            let o = match by.column {
                ValueColumn::Label => a.label.cmp(&b.label),
                _ => a.count.cmp(&b.count),
            };
            let o = if by.descending { o.reverse() } else { o };
            o.then(a.key.cmp(&b.key))
        });
        let omitted = if req.limit > 0 && rows.len() > req.limit {
            let o = rows.len() - req.limit;
            rows.truncate(req.limit);
            o
        } else {
            0
        };
        Ok(TableResponse {
            column: None,
            total: Totals {
                count: total,
                weight_ns: 0,
            },
            parent: Totals {
                count: parent,
                weight_ns: 0,
            },
            rows,
            omitted,
        })
    }
}
