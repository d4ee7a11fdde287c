//! Waits (CPU Usage (Precise)): threads that spend most of the trace
//! waiting, by the time they waited before each switch-in.

use super::{thousands, Category, Finding, FindingView};
use crate::flat_table::{self, FlatRequest};
use crate::{CellValue, TableDef, ValueSpec};

/// A thread is named when its waits add up to at least this share of the trace...
pub const MIN_SHARE: f64 = 0.5;
/// ...at most this many threads.
pub const TOP: usize = 3;

pub(crate) fn qualifies(wait_ns: i64, duration_ns: i64) -> bool {
    duration_ns > 0 && wait_ns as f64 >= MIN_SHARE * duration_ns as f64
}

pub(crate) fn run(engine: &crate::Engine) -> Vec<Finding> {
    let t = engine.trace();
    let Some(def) = TableDef::of(t, "cpu-precise") else {
        return Vec::new();
    };
    let (Some(p), Some(tid), Ok(waits), Ok(count)) = (
        def.column("New Process"),
        def.column("New Thread Id"),
        ValueSpec::parse(&def, "Waits:sum"),
        ValueSpec::parse(&def, "Count"),
    ) else {
        return Vec::new();
    };
    let header = waits.header(&def);
    let req = FlatRequest {
        keys: vec![p, tid],
        values: vec![waits, count],
        ..Default::default()
    };
    let Ok(table) = flat_table::group(t, &def, &req) else {
        return Vec::new();
    };
    let duration = t.info.duration_ns;
    let mut rows: Vec<(String, String, i64, u64)> = table
        .rows
        .iter()
        .filter_map(|r| {
            let (Some(CellValue::Text(p)), Some(tid)) = (r.keys.first(), r.keys.get(1)) else {
                return None;
            };
            let tid = tid.text(crate::ColumnType::Id);
            let Some(CellValue::Number(ns)) = r.values.first() else {
                return None;
            };
            let n = super::count_of(r.values.get(1)).unwrap_or(0);
            qualifies(*ns, duration).then(|| (p.clone(), tid, *ns, n))
        })
        .collect();
    rows.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| (&a.0, &a.1).cmp(&(&b.0, &b.1))));
    rows.into_iter()
        .take(TOP)
        .map(|(p, tid, ns, n)| Finding {
            rule: "thread-waits",
            category: Category::Cpu,
            title: format!(
                "thread {tid} of {p} waited {:.3} s ({:.0}% of the trace) before {} switch-ins",
                ns as f64 / 1e9,
                ns as f64 * 100.0 / duration.max(1) as f64,
                thousands(n)
            ),
            figure: ns as f64 / 1e9,
            unit: "s",
            view: FindingView::table(
                "cpu-precise",
                &["New Process", "New Thread Id"],
                vec![p, tid],
                &header,
            )
            .values(&["Waits:sum", "Count"]),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn half_the_trace_or_more() {
        assert!(super::qualifies(5, 10));
        assert!(!super::qualifies(4, 10));
        assert!(!super::qualifies(4, 0));
    }
}
