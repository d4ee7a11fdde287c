//! Trace health: what the recorder lost, what the decoder could not read,
//! samples without stacks, images without their KernelTraceControl
//! identity (PDB GUID) and sampled frames without symbols, by module. The
//! counts are `etlscope info`'s (`TraceInfo`) and the tables'.

use super::{thousands, Category, Finding, FindingView};
use crate::flat_table::{self, FlatRequest};
use crate::{CellValue, Column, Engine, Filters, TableDef, TableRequest};

/// Modules without symbols are named from this share of all samples...
pub const MIN_UNNAMED_SHARE: f64 = 0.01;
/// ...at most this many.
pub const TOP_UNNAMED: usize = 5;

fn info(rule: &'static str, key: &str, n: u64, what: &str) -> Option<Finding> {
    (n > 0).then(|| Finding {
        rule,
        category: Category::Health,
        title: format!("{} {what}", thousands(n)),
        figure: n as f64,
        unit: "count",
        view: FindingView::info(key),
    })
}

pub(crate) fn run(engine: &Engine) -> Vec<Finding> {
    let t = engine.trace();
    let i = &t.info;
    let mut out: Vec<Finding> = [
        info(
            "lost-events",
            "lost_events",
            i.lost_events,
            "events lost by the recorder",
        ),
        info(
            "lost-buffers",
            "lost_buffers",
            i.lost_buffers,
            "buffers lost by the recorder",
        ),
        info(
            "skipped-buffers",
            "skipped_buffers",
            i.skipped_buffers.into(),
            "buffers that could not be read",
        ),
    ]
    .into_iter()
    .flatten()
    .collect();
    out.extend(stackless(engine));
    out.extend(images_without_identity(engine));
    out.extend(unnamed_frames(engine));
    out
}

/// Samples without a stack walk: their stack is at most the instruction
/// pointer (what the flame graph's "hide samples without stacks" drops).
fn stackless(engine: &Engine) -> Option<Finding> {
    let count = |min_stack_depth: u16| {
        let req = TableRequest {
            filters: Filters {
                min_stack_depth,
                ..Default::default()
            },
            ..Default::default()
        };
        engine.table(&req).map(|r| r.total.count).ok()
    };
    let (all, walked) = (count(0)?, count(2)?);
    let n = all.saturating_sub(walked);
    (n > 0).then(|| Finding {
        rule: "samples-without-stacks",
        category: Category::Health,
        title: format!(
            "{} of {} CPU samples have no stack walk",
            thousands(n),
            thousands(all)
        ),
        figure: n as f64,
        unit: "samples",
        view: FindingView::table("cpu-sampled", &["Stack"], Vec::new(), "Count"),
    })
}

/// Images whose PDB GUID is missing: no DbgID_RSDS event for them.
fn images_without_identity(engine: &Engine) -> Option<Finding> {
    let t = engine.trace();
    let def = TableDef::of(t, "images")?;
    let req = FlatRequest {
        keys: vec![def.column("PDB GUID")?],
        values: vec![crate::ValueSpec::parse(&def, "Count").ok()?],
        ..Default::default()
    };
    let table = flat_table::group(t, &def, &req).ok()?;
    let (all, missing) = table.rows.iter().fold((0, 0), |(all, missing), r| {
        let n = super::count_of(r.values.first()).unwrap_or(0);
        let empty = matches!(r.keys.first(), Some(CellValue::Text(s)) if s.is_empty());
        (all + n, missing + if empty { n } else { 0 })
    });
    (missing > 0).then(|| Finding {
        rule: "images-without-identity",
        category: Category::Health,
        title: format!(
            "{} of {} image loads have no PDB identity (KernelTraceControl DbgID_RSDS)",
            thousands(missing),
            thousands(all)
        ),
        figure: missing as f64,
        unit: "images",
        view: FindingView::table("images", &["PDB GUID"], vec![String::new()], "Count")
            .values(&["Count"]),
    })
}

/// Leaf samples on frames without a function name, by module.
fn unnamed_frames(engine: &Engine) -> Vec<Finding> {
    let (rows, total) = super::cpu_share::rows(engine, Column::Function);
    let mut unnamed: Vec<(String, u64)> = rows
        .iter()
        .filter_map(|r| {
            let module = r.label.strip_suffix("!?")?;
            (r.count as f64 >= MIN_UNNAMED_SHARE * total as f64)
                .then(|| (module.to_string(), r.count))
        })
        .collect();
    unnamed.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    unnamed
        .into_iter()
        .take(TOP_UNNAMED)
        .map(|(m, n)| Finding {
            rule: "frames-without-symbols",
            category: Category::Health,
            title: format!(
                "{} CPU samples end in {m} frames without symbols",
                thousands(n)
            ),
            figure: n as f64,
            unit: "samples",
            view: FindingView::table(
                "cpu-sampled",
                &["Module", "Function"],
                vec![m.clone()],
                "Count",
            )
            .filter("Module", &m),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn info_findings_only_for_nonzero_counts() {
        assert!(super::info("lost-events", "lost_events", 0, "x").is_none());
        let f = super::info("lost-events", "lost_events", 1200, "events lost");
        let f = f.expect("a finding");
        assert_eq!(f.title, "1,200 events lost");
        assert_eq!(f.view.target, "lost_events");
        assert_eq!(f.view.link(), "");
    }
}
