//! I/O: slow disk I/O, the paths whose slowest disk service time exceeds
//! a threshold.

use super::{Category, Finding, FindingView};
use crate::table::flat::{self, FlatRequest};
use crate::{CellValue, TableDef, ValueSpec};

/// An I/O is slow from this disk service time.
pub const SLOW_NS: i64 = 100_000_000;
/// At most this many paths.
pub const TOP: usize = 3;

pub(crate) fn run(engine: &crate::Engine) -> Vec<Finding> {
    let t = engine.trace();
    let Some(def) = TableDef::of(t, "disk-io") else {
        return Vec::new();
    };
    let (Some(path), Ok(max)) = (
        def.column("Path Name"),
        ValueSpec::parse(&def, "Disk Service Time:max"),
    ) else {
        return Vec::new();
    };
    let header = max.header(&def);
    let req = FlatRequest {
        keys: vec![path],
        values: vec![max],
        ..Default::default()
    };
    let Ok(table) = flat::group(t, &def, &req) else {
        return Vec::new();
    };
    let mut slow: Vec<(String, i64)> = table
        .rows
        .iter()
        .filter_map(|r| match (r.keys.first(), r.values.first()) {
            (Some(CellValue::Text(p)), Some(CellValue::Number(ns))) if *ns >= SLOW_NS => {
                Some((p.clone(), *ns))
            }
            _ => None,
        })
        .collect();
    slow.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    slow.into_iter()
        .take(TOP)
        .map(|(p, ns)| Finding {
            rule: "slow-disk-io",
            category: Category::Io,
            title: format!(
                "disk I/O on {} took up to {:.0} ms",
                if p.is_empty() { "(no path)" } else { &p },
                ns as f64 / 1e6
            ),
            figure: ns as f64 / 1e9,
            unit: "s",
            view: FindingView::table("disk-io", &["Path Name"], vec![p], &header)
                .values(&["Disk Service Time:max"]),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn threshold_is_100_ms() {
        assert_eq!(super::SLOW_NS, 100 * 1_000_000);
    }
}
