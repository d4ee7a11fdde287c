//! I/O: a file opened again and again over a long stretch of the trace
//! (polling): File I/O creates by path, with the first and last open. A
//! steady poller spreads its opens over the span; a burst of opens in one
//! moment is `file_opens`' business, not this rule's.

use super::{thousands, Category, Finding, FindingView};
use crate::table::flat::{self, FlatRequest};
use crate::{CellValue, TableDef, ValueSpec};

/// A file is named from this many opens...
pub const MIN_OPENS: u64 = 100;
/// ...spread over at least this many seconds...
pub const MIN_SPAN_S: f64 = 5.0;
/// ...at least this many a second on average (the demo's shell folders
/// and caches, opened 10-14 times a second while Explorer redraws, are
/// not named; its proxy DLL, 291 a second, is)...
pub const MIN_RATE: f64 = 20.0;
/// ...at most this many files.
pub const TOP: usize = 3;

pub(crate) fn qualifies(opens: u64, span_s: f64) -> bool {
    opens >= MIN_OPENS && span_s >= MIN_SPAN_S && opens as f64 / span_s >= MIN_RATE
}

pub(crate) fn run(engine: &crate::Engine) -> Vec<Finding> {
    let t = engine.trace();
    let Some(def) = TableDef::of(t, "file-io") else {
        return Vec::new();
    };
    let (Some(path), Some(ty), Ok(count), Ok(first), Ok(last)) = (
        def.column("File Path"),
        def.column("Type"),
        ValueSpec::parse(&def, "Count"),
        ValueSpec::parse(&def, "Start Time:min"),
        ValueSpec::parse(&def, "Start Time:max"),
    ) else {
        return Vec::new();
    };
    let req = FlatRequest {
        keys: vec![path],
        values: vec![count, first, last],
        filters: vec![(ty, "Create".into())],
        ..Default::default()
    };
    let Ok(table) = flat::group(t, &def, &req) else {
        return Vec::new();
    };
    let time = |i: usize, r: &flat::FlatRow| {
        let ty = table.value_types.get(i).copied()?;
        r.values.get(i)?.number(ty)
    };
    let mut out: Vec<Finding> = table
        .rows
        .iter()
        .filter_map(|r| {
            let Some(CellValue::Text(p)) = r.keys.first() else {
                return None;
            };
            let n = super::count_of(r.values.first())?;
            let span = time(2, r)? - time(1, r)?;
            (!p.is_empty() && qualifies(n, span)).then(|| Finding {
                rule: "file-polling",
                category: Category::Io,
                title: format!(
                    "{p} is opened {} times over {span:.1} s ({:.1} a second)",
                    thousands(n),
                    n as f64 / span
                ),
                figure: n as f64,
                unit: "opens",
                view: FindingView::table("file-io", &["File Path"], vec![p.clone()], "Count")
                    .filter("Type", "Create")
                    .values(&["Count"]),
            })
        })
        .collect();
    out.sort_by(|a, b| b.figure.total_cmp(&a.figure));
    out.truncate(TOP);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn many_opens_spread_over_a_long_span() {
        // The demo's proxy DLL: 4,663 opens between 7 and 23 s.
        assert!(super::qualifies(4663, 16.0));
        assert!(!super::qualifies(99, 1.0), "too few opens");
        assert!(!super::qualifies(4663, 0.5), "one burst, not polling");
        assert!(
            !super::qualifies(240, 21.5),
            "11 a second: an app's cache, not a poller"
        );
        assert!(super::qualifies(100, 5.0));
    }
}
