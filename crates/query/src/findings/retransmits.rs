//! Network: processes whose TCP connections retransmit (kernel TcpIp
//! Retransmit events, attributed by their payload's PID).

use super::per_process::at_least;
use super::{thousands, Category, Finding, FindingView};

/// A process is named from this many retransmits...
pub const MIN_RETRANSMITS: i64 = 10;
/// ...at most this many processes.
pub const TOP: usize = 3;

pub(crate) fn run(engine: &crate::Engine) -> Vec<Finding> {
    let t = engine.trace();
    at_least(
        t,
        "network",
        "Count",
        Some(("Event", "Retransmit")),
        MIN_RETRANSMITS,
        TOP,
    )
    .into_iter()
    .map(|(p, n)| Finding {
        rule: "retransmits",
        category: Category::Io,
        title: format!("{p} retransmitted {} TCP segments", thousands(n as u64)),
        figure: n as f64,
        unit: "retransmits",
        view: FindingView::table("network", &["Process"], vec![p], "Count")
            .filter("Event", "Retransmit")
            .values(&["Count", "Size"]),
    })
    .collect()
}
