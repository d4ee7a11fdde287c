//! I/O: a file opened many times (the blog's `ti_managers_proxy.dll`,
//! 4,663 opens, 79% of Explorer's creates): File I/O creates by path.

use super::{thousands, Category, Finding, FindingView};
use crate::table::flat::{self, FlatRequest};
use crate::{CellValue, TableDef, ValueSpec};

/// A file is named from this many opens...
pub const MIN_OPENS: u64 = 500;
/// ...when they are at least this share of all creates.
pub const MIN_SHARE: f64 = 0.10;

pub(crate) fn qualifies(opens: u64, creates: u64) -> bool {
    opens >= MIN_OPENS && opens as f64 >= MIN_SHARE * creates as f64
}

pub(crate) fn run(engine: &crate::Engine) -> Vec<Finding> {
    let t = engine.trace();
    let Some(def) = TableDef::of(t, "file-io") else {
        return Vec::new();
    };
    let (Some(path), Some(ty), Ok(count)) = (
        def.column("File Path"),
        def.column("Type"),
        ValueSpec::parse(&def, "Count"),
    ) else {
        return Vec::new();
    };
    let req = FlatRequest {
        keys: vec![path],
        values: vec![count],
        filters: vec![(ty, "Create".into())],
        ..Default::default()
    };
    let Ok(table) = flat::group(t, &def, &req) else {
        return Vec::new();
    };
    let rows: Vec<(String, u64)> = table
        .rows
        .iter()
        .filter_map(|r| match r.keys.first() {
            Some(CellValue::Text(p)) => Some((p.clone(), super::count_of(r.values.first())?)),
            _ => None,
        })
        .collect();
    let creates: u64 = rows.iter().map(|r| r.1).sum();
    rows.into_iter()
        .filter(|(p, n)| !p.is_empty() && qualifies(*n, creates))
        .map(|(p, n)| Finding {
            rule: "file-opened-often",
            category: Category::Io,
            title: format!(
                "{p} is opened {} times ({:.0}% of {} file creates)",
                thousands(n),
                n as f64 * 100.0 / creates.max(1) as f64,
                thousands(creates)
            ),
            figure: n as f64,
            unit: "opens",
            view: FindingView::table("file-io", &["File Path"], vec![p], "Count")
                .filter("Type", "Create")
                .values(&["Count"]),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn many_opens_and_a_large_share() {
        assert!(super::qualifies(4663, 5902));
        assert!(!super::qualifies(499, 600), "too few opens");
        assert!(!super::qualifies(600, 6001), "below 10% of creates");
        assert!(super::qualifies(600, 6000));
    }
}
