//! CPU: the processes and modules that take the largest share of the
//! sampled CPU. Idle's samples (PID 0) are left out of every count, the
//! base included, and the sentences say "non-idle"; samples outside every
//! module are no module's.

use super::{thousands, Category, Finding, FindingView};
use crate::{Column, Engine, Row, TableRequest};

/// A process or module is named when it has at least this share of samples.
pub const MIN_SHARE: f64 = 0.10;
/// At most this many of each.
pub const TOP: usize = 3;

/// CPU Usage (Sampled) without Idle, grouped by one column, heaviest
/// first, and the non-idle total.
pub(crate) fn rows(engine: &Engine, column: Column) -> (Vec<Row>, u64) {
    let req = TableRequest {
        columns: vec![column],
        filters: super::non_idle(engine),
        ..Default::default()
    };
    match engine.table(&req) {
        Ok(t) => (t.rows, t.total.count),
        Err(_) => (Vec::new(), 0),
    }
}

/// Samples by process name, and their total.
pub(crate) fn process_rows(engine: &Engine) -> (Vec<Row>, u64) {
    rows(engine, Column::ProcessName)
}

/// The rows worth naming: not `skip`, at least `MIN_SHARE` of `total`,
/// at most `TOP`, heaviest first (rows arrive heaviest first).
pub(crate) fn top<'a>(rows: &'a [Row], total: u64, skip: &[&str]) -> Vec<&'a Row> {
    rows.iter()
        .filter(|r| !skip.contains(&r.label.as_str()) && !r.label.is_empty())
        .filter(|r| total > 0 && r.count as f64 >= MIN_SHARE * total as f64)
        .take(TOP)
        .collect()
}

fn percent(n: u64, total: u64) -> f64 {
    n as f64 * 100.0 / total.max(1) as f64
}

pub(crate) fn processes(engine: &Engine, procs: &(Vec<Row>, u64)) -> Vec<Finding> {
    let (rows, total) = procs;
    top(rows, *total, &[])
        .into_iter()
        .map(|r| Finding {
            rule: "cpu-process",
            category: Category::Cpu,
            title: format!(
                "{} takes {} of {} non-idle CPU samples ({:.1}%)",
                r.label,
                thousands(r.count),
                thousands(*total),
                percent(r.count, *total)
            ),
            figure: r.count as f64,
            unit: "samples",
            view: super::without_idle(
                engine,
                FindingView::table(
                    "cpu-sampled",
                    &["Process Name"],
                    vec![r.label.clone()],
                    "Count",
                ),
            ),
        })
        .collect()
}

pub(crate) fn modules(engine: &Engine) -> Vec<Finding> {
    let (rows, total) = rows(engine, Column::Module);
    top(&rows, total, &["?", "n/a"])
        .into_iter()
        .map(|r| Finding {
            rule: "cpu-module",
            category: Category::Cpu,
            title: format!(
                "{} is the leaf of {} of {} non-idle CPU samples ({:.1}%)",
                r.label,
                thousands(r.count),
                thousands(total),
                percent(r.count, total)
            ),
            figure: r.count as f64,
            unit: "samples",
            view: super::without_idle(
                engine,
                FindingView::table("cpu-sampled", &["Module"], vec![r.label.clone()], "Count"),
            ),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(label: &str, count: u64) -> Row {
        Row {
            key: 0,
            label: label.into(),
            count,
            weight_ns: 0,
            percent_weight: 0.0,
            first_ns: 0,
            last_ns: 0,
            expandable: false,
            sums: Vec::new(),
            values: Vec::new(),
        }
    }

    #[test]
    fn names_at_most_three_rows_of_ten_percent_or_more() {
        let rows = [
            row("Idle", 500),
            row("a", 200),
            row("b", 100),
            row("c", 100),
            row("d", 100),
            row("e", 99),
        ];
        let got: Vec<&str> = top(&rows, 1000, &["Idle"])
            .iter()
            .map(|r| r.label.as_str())
            .collect();
        assert_eq!(got, ["a", "b", "c"]);
        let rows = [row("a", 100), row("e", 99)];
        assert_eq!(top(&rows, 1000, &[]).len(), 1, "99 of 1000 is below 10%");
        assert!(top(&rows, 0, &[]).is_empty());
    }
}
