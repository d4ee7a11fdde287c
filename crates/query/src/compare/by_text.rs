//! Comparison of two traces' grouped tables (baseline and comparison):
//! rows matched by the text of their keys, which names what the trace
//! recorded rather than this trace's ids (process by name, module by name,
//! function by `module!function` or `module!0xRVA`, stack by its path of
//! frames); a Process key drops its ` (pid)`, which differs between runs.
//! Each numeric value column gives baseline, comparison, delta and delta %.

use crate::table::cell_value::CellValue;
use crate::table::columns::ColumnType;
use crate::table::flat::FlatTable;
use rustc_hash::FxHashMap;

/// How the baseline is scaled before the delta.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Normalize {
    None,
    /// By the ratio of the comparison's range to the baseline's (seconds).
    Time {
        base_s: f64,
        new_s: f64,
    },
    /// By the ratio of the comparison's total samples to the baseline's.
    Samples {
        base: u64,
        new: u64,
    },
}

impl Normalize {
    /// The factor applied to baseline values.
    pub fn factor(self) -> f64 {
        let ratio = |a: f64, b: f64| if a > 0.0 { b / a } else { 1.0 };
        match self {
            Normalize::None => 1.0,
            Normalize::Time { base_s, new_s } => ratio(base_s, new_s),
            Normalize::Samples { base, new } => ratio(base as f64, new as f64),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct CompareRow {
    /// The row's identity: one text per key column.
    pub keys: Vec<String>,
    /// Per compared value column: (baseline scaled, comparison).
    pub values: Vec<(f64, f64)>,
}

impl CompareRow {
    pub fn delta(&self, i: usize) -> f64 {
        self.values.get(i).map_or(0.0, |(b, n)| n - b)
    }

    /// Delta as a percentage of the baseline (`None` when it is 0).
    pub fn delta_percent(&self, i: usize) -> Option<f64> {
        let (b, n) = *self.values.get(i)?;
        (b != 0.0).then(|| (n - b) * 100.0 / b)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct CompareTable {
    pub key_names: Vec<&'static str>,
    /// Headers of the compared (numeric) value columns.
    pub value_names: Vec<String>,
    pub value_types: Vec<ColumnType>,
    /// Largest loss (most negative delta of the first value) first.
    pub rows: Vec<CompareRow>,
}

/// The identity text of a key cell of column `name`.
pub fn identity(name: &str, cell: &CellValue, ty: ColumnType) -> String {
    let text = cell.text(ty);
    if name == "Process" {
        // "explorer.exe (6148)": the pid is this run's.
        if let Some((n, pid)) = text.rsplit_once(" (") {
            if pid.ends_with(')') && pid[..pid.len() - 1].bytes().all(|b| b.is_ascii_digit()) {
                return n.to_string();
            }
        }
    }
    text
}

fn numbers(t: &FlatTable, cols: &[usize]) -> FxHashMap<Vec<String>, Vec<f64>> {
    let mut out: FxHashMap<Vec<String>, Vec<f64>> = FxHashMap::default();
    for r in &t.rows {
        let key: Vec<String> = r
            .keys
            .iter()
            .zip(&t.key_names)
            .zip(&t.key_types)
            .map(|((c, n), &ty)| identity(n, c, ty))
            .collect();
        let vals = out.entry(key).or_insert_with(|| vec![0.0; cols.len()]);
        for (v, &c) in vals.iter_mut().zip(cols) {
            let ty = t.value_types.get(c).copied().unwrap_or(ColumnType::Count);
            // Two pids of one name are one row: their values add up.
            *v += r.values.get(c).and_then(|x| x.number(ty)).unwrap_or(0.0);
        }
    }
    out
}

/// `new` against `base` (the same request on both traces), the baseline
/// scaled by `scale`; rows of either side, the other's values 0.
pub fn compare(base: &FlatTable, new: &FlatTable, scale: f64) -> CompareTable {
    // Numeric value columns only: a text or address has no delta.
    let cols: Vec<usize> = (0..new.value_names.len())
        .filter(|&i| {
            new.value_types
                .get(i)
                .is_some_and(|t| t.is_numeric() && *t != ColumnType::Address)
        })
        .collect();
    let b = numbers(base, &cols);
    let n = numbers(new, &cols);
    let mut keys: Vec<&Vec<String>> = b
        .keys()
        .chain(n.keys().filter(|k| !b.contains_key(*k)))
        .collect();
    keys.sort();
    let zero = vec![0.0; cols.len()];
    let mut rows: Vec<CompareRow> = keys
        .into_iter()
        .map(|k| {
            let bv = b.get(k).unwrap_or(&zero);
            let nv = n.get(k).unwrap_or(&zero);
            CompareRow {
                keys: k.clone(),
                values: bv.iter().zip(nv).map(|(x, y)| (x * scale, *y)).collect(),
            }
        })
        .collect();
    rows.sort_by(|x, y| {
        x.delta(0)
            .total_cmp(&y.delta(0))
            .then_with(|| x.keys.cmp(&y.keys))
    });
    CompareTable {
        key_names: new.key_names.clone(),
        value_names: cols
            .iter()
            .filter_map(|&c| new.value_names.get(c).cloned())
            .collect(),
        value_types: cols
            .iter()
            .filter_map(|&c| new.value_types.get(c).copied())
            .collect(),
        rows,
    }
}

/// Keeps at most `limit` of `rows` (in loss-first order): those with the
/// largest change of the first value, in their order, so gains survive a
/// cut; answers how many were left out.
pub fn keep_largest_changes<T>(
    rows: &mut Vec<T>,
    limit: usize,
    delta: impl Fn(&T) -> f64,
) -> usize {
    let n = rows.len();
    if n <= limit {
        return 0;
    }
    let size: Vec<f64> = rows.iter().map(|r| delta(r).abs()).collect();
    let mut by_size: Vec<usize> = (0..n).collect();
    by_size.sort_by(|&a, &b| size[b].total_cmp(&size[a]).then(a.cmp(&b)));
    let mut kept = vec![false; n];
    for &i in by_size.iter().take(limit) {
        kept[i] = true;
    }
    let mut i = 0;
    rows.retain(|_| {
        i += 1;
        kept[i - 1]
    });
    n - rows.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::flat::FlatRow;

    fn table(rows: &[(&str, u64)]) -> FlatTable {
        FlatTable {
            key_names: vec!["Process"],
            key_types: vec![ColumnType::Text],
            value_names: vec!["Count".into(), "Name".into()],
            value_types: vec![ColumnType::Count, ColumnType::Text],
            rows: rows
                .iter()
                .map(|(k, n)| FlatRow {
                    keys: vec![CellValue::Text(k.to_string())],
                    values: vec![CellValue::Count(*n), CellValue::Text("x".into())],
                })
                .collect(),
            omitted: 0,
        }
    }

    #[test]
    fn rows_match_by_name_without_pid_and_sort_by_loss() {
        let base = table(&[
            ("explorer.exe (6148)", 44_504),
            ("dwm.exe (1196)", 100),
            ("gone.exe (1)", 5),
        ]);
        let new = table(&[
            ("explorer.exe (7000)", 18_504),
            ("dwm.exe (1200)", 120),
            ("new.exe (2)", 7),
        ]);
        let c = compare(&base, &new, 1.0);
        assert_eq!(c.value_names, ["Count"], "text columns have no delta");
        let keys: Vec<&str> = c.rows.iter().map(|r| r.keys[0].as_str()).collect();
        assert_eq!(keys, ["explorer.exe", "gone.exe", "new.exe", "dwm.exe"]);
        assert_eq!(c.rows[0].delta(0), -26_000.0);
        assert_eq!(c.rows[3].delta_percent(0), Some(20.0));
        assert_eq!(c.rows[2].delta_percent(0), None, "no baseline");
    }

    #[test]
    fn normalisation_scales_the_baseline() {
        assert_eq!(
            Normalize::Time {
                base_s: 10.0,
                new_s: 5.0
            }
            .factor(),
            0.5
        );
        assert_eq!(
            Normalize::Samples {
                base: 200,
                new: 100
            }
            .factor(),
            0.5
        );
        assert_eq!(Normalize::Samples { base: 0, new: 100 }.factor(), 1.0);
        let c = compare(&table(&[("a", 10)]), &table(&[("a", 10)]), 0.5);
        assert_eq!(c.rows[0].values[0], (5.0, 10.0));
    }

    #[test]
    fn a_cut_keeps_the_largest_changes_in_loss_first_order() {
        let row = |k: &str, b: f64, n: f64| CompareRow {
            keys: vec![k.into()],
            values: vec![(b, n)],
        };
        // Loss first, as `compare` sorts them.
        let mut rows = vec![
            row("a", 100.0, 0.0),
            row("b", 5.0, 4.0),
            row("c", 0.0, 1.0),
            row("d", 0.0, 50.0),
        ];
        assert_eq!(keep_largest_changes(&mut rows, 2, |r| r.delta(0)), 2);
        let keys: Vec<&str> = rows.iter().map(|r| r.keys[0].as_str()).collect();
        assert_eq!(keys, ["a", "d"]);
        assert_eq!(keep_largest_changes(&mut rows, 5, |r| r.delta(0)), 0);
    }
}
