//! Memory: heap churn, processes that allocate and free many heap blocks
//! within the trace (WPA's AIFI class: allocated inside, freed inside).

use super::per_process::at_least;
use super::{thousands, Category, Finding, FindingView};

/// A process is named from this many blocks allocated and freed...
pub const MIN_BLOCKS: i64 = 10_000;
/// ...at most this many processes.
pub const TOP: usize = 3;

pub(crate) fn run(engine: &crate::Engine) -> Vec<Finding> {
    let t = engine.trace();
    let secs = (t.info.duration_ns as f64 / 1e9).max(1e-9);
    at_least(t, "heap", "Count", Some(("Type", "AIFI")), MIN_BLOCKS, TOP)
        .into_iter()
        .map(|(p, n)| Finding {
            rule: "heap-churn",
            category: Category::Memory,
            title: format!(
                "{p} allocated and freed {} heap blocks ({} a second)",
                thousands(n as u64),
                thousands((n as f64 / secs) as u64)
            ),
            figure: n as f64,
            unit: "blocks",
            view: FindingView::table("heap", &["Process"], vec![p], "Count")
                .filter("Type", "AIFI")
                .values(&["Count", "Size"]),
        })
        .collect()
}
